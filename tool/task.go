package tool

import "fmt"

// TaskSupport says whether a tool may run as a task: a call that a client
// starts, then polls for its status and fetches its result later, rather
// than waiting on one request (MCP's task-augmented tools/call). The tool
// itself is unchanged — its handler runs as it always does — so task
// support is a promise about how long a call may take, which a server
// serving the tool acts on.
type TaskSupport string

// The values of TaskSupport, as MCP's execution.taskSupport spells them.
const (
	// TaskForbidden, the zero value, runs every call as one request.
	TaskForbidden TaskSupport = ""
	// TaskOptional lets a client choose: run the call as a task, or as one
	// request.
	TaskOptional TaskSupport = "optional"
	// TaskRequired accepts calls run as tasks only; a server refuses a
	// plain call.
	TaskRequired TaskSupport = "required"
)

// WithTaskSupport declares that the tool may (TaskOptional) or must
// (TaskRequired) be run as a task by clients that can: a long-running
// tool that a client should not wait on with one request. The spec
// carries it (Spec.TaskSupport), and mcpserver serves such calls as MCP
// tasks. Direct calls and a Registry run the tool as they run any other.
func WithTaskSupport(ts TaskSupport) Option {
	return func(c *config) {
		switch ts {
		case TaskForbidden, TaskOptional, TaskRequired:
			c.tasks = ts
		default:
			c.errs = append(c.errs, fmt.Errorf("WithTaskSupport(%q): want TaskForbidden, TaskOptional or TaskRequired", string(ts)))
		}
	}
}
