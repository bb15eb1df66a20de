package durable

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
)

// The names under which Tasks.Register puts the workflow of an MCP task
// and its activity on a worker.
const (
	// TaskWorkflowName is the workflow type of one task's call; its input
	// is a TaskInput.
	TaskWorkflowName = "hands.Task"
	// TaskActivity runs a task's call (mcpserver.Server.RunTask); its
	// input is the mcpserver.TaskCall, sealed by the replica that made
	// it.
	TaskActivity = "hands.TaskCall"
	// ErrTypeTaskEnded: the task ended otherwise than by its call's
	// outcome (cancelled, expired, its lease lapsed before the attempt
	// took it over); not retried, and the workflow ends without error.
	ErrTypeTaskEnded = "hands.TaskEnded"
	// ErrTypeTaskCallAltered: the worker's server refused the call
	// (mcpserver.ErrTaskCallAltered): no replica sealed it as it is, or
	// its task is another's; nothing ran. Not retried, since it never
	// will run, and the workflow fails with it.
	ErrTypeTaskCallAltered = "hands.TaskCallAltered"
)

// DefaultTaskQueue is the task queue of Tasks when TaskOptions.Queue is
// empty.
const DefaultTaskQueue = "hands-tasks"

// TaskWorkflowID returns the ID of the workflow of the task whose ID in
// the store is id (mcpserver.TaskCall.ID): one task has one workflow, and
// a second start of it is refused.
func TaskWorkflowID(id string) string { return "hands-task-" + id }

// TaskOptions configure Tasks. A nil *TaskOptions selects every default.
type TaskOptions struct {
	// Queue is the task queue of the workflows and activities, which the
	// worker of every replica polls. Empty selects DefaultTaskQueue.
	Queue string
	// HeartbeatTimeout fails an attempt whose worker has sent no
	// heartbeat for that long: its worker is taken to be lost, and the
	// call runs again on another worker when its tool allows it. Zero
	// selects a third of the task's lease (mcpserver.TaskOptions.Lease).
	// Keep it well under the lease: the next attempt must take the lease
	// over before it lapses, and it starts the heartbeat timeout, and
	// Temporal's wait before a retry (a second), after the lost worker's
	// last heartbeat, while the lease lapses up to a lease after the lost
	// worker's last renewal, which it made at most a third of a lease
	// before.
	HeartbeatTimeout time.Duration
}

// Tasks runs the calls of MCP tasks as Temporal activities, so that a
// task outlives the replica that made it. On each replica it is the
// servers' mcpserver.TaskOptions.Runner, whose Start starts a workflow
// for the task (TaskWorkflowName, with TaskWorkflowID), and Register puts
// the workflow and its activity on the replica's worker, whose activity
// runs the call on the replica's server (mcpserver.Server.RunTask). The
// replicas share a task store, a state key (which seals each call in its
// workflow's input; see the package doc) and a task queue.
//
// A Tasks is safe for concurrent use.
type Tasks struct {
	client client.Client
	reg    *tool.Registry
	opts   TaskOptions
}

// NewTasks returns a Tasks that starts workflows with c, for the tools of
// reg, whose annotations choose how often a call may run (see the
// package doc, "MCP tasks").
func NewTasks(c client.Client, reg *tool.Registry, opts *TaskOptions) *Tasks {
	ts := &Tasks{client: c, reg: reg}
	if opts != nil {
		ts.opts = *opts
	}
	if ts.opts.Queue == "" {
		ts.opts.Queue = DefaultTaskQueue
	}
	if ts.reg == nil {
		ts.reg = &tool.Registry{}
	}
	return ts
}

// TaskInput is the input of the task workflow.
type TaskInput struct {
	// Call is the task's call.
	Call mcpserver.TaskCall `json:"call"`
	// Attempts is how many times the call may run: three for a tool
	// annotated read-only or idempotent, one for the others.
	Attempts int32 `json:"attempts"`
	// HeartbeatTimeout is the activity's (TaskOptions.HeartbeatTimeout).
	HeartbeatTimeout time.Duration `json:"heartbeatTimeout"`
}

// A TaskRegistrar is what Tasks.Register puts the workflow and its
// activity on: a worker.Worker, or a test environment.
type TaskRegistrar interface {
	Registrar
	activityRegistrar
}

// Register registers the task workflow (TaskWorkflowName) and its
// activity (TaskActivity) on w; the activity runs each call on srv, a
// server of the registry Tasks was made with, which shares its task store
// and state key with the other replicas.
func (ts *Tasks) Register(w TaskRegistrar, srv *mcpserver.Server) {
	w.RegisterWorkflowWithOptions(taskWorkflow, workflow.RegisterOptions{Name: TaskWorkflowName})
	w.RegisterActivityWithOptions(func(ctx context.Context, call mcpserver.TaskCall) error {
		return runTask(ctx, srv, call)
	}, activity.RegisterOptions{Name: TaskActivity})
}

// Start starts the workflow of a task's call: mcpserver.TaskRunner.Start.
// A task whose workflow was started before is refused.
func (ts *Tasks) Start(ctx context.Context, call mcpserver.TaskCall) error {
	in := TaskInput{Call: call, Attempts: 1, HeartbeatTimeout: ts.opts.HeartbeatTimeout}
	if in.HeartbeatTimeout <= 0 {
		in.HeartbeatTimeout = call.Lease / 3
	}
	if t, ok := ts.reg.Lookup(call.Tool); ok {
		if an := t.Spec().Annotations; an != nil && (an.ReadOnly || an.Idempotent) {
			in.Attempts = 3
		}
	}
	_, err := ts.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       TaskWorkflowID(call.ID),
		TaskQueue:                                ts.opts.Queue,
		WorkflowExecutionTimeout:                 call.TTL,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}, TaskWorkflowName, in)
	return err
}

// Cancel cancels the workflow of a task: mcpserver.TaskRunner.Cancel. Its
// activity learns of it at its next heartbeat, and its call stops. A
// task without a workflow, or whose workflow has ended, is no error.
func (ts *Tasks) Cancel(ctx context.Context, id string) error {
	err := ts.client.CancelWorkflow(ctx, TaskWorkflowID(id), "")
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return nil
	}
	return err
}

var _ mcpserver.TaskRunner = (*Tasks)(nil)

// taskWorkflow runs a task's call as one activity, retried as in.Attempts
// allows, until the task's TTL has passed. It reads its input alone.
func taskWorkflow(ctx workflow.Context, in TaskInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		ScheduleToCloseTimeout: in.Call.TTL,
		HeartbeatTimeout:       in.HeartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{
			MaximumAttempts:        in.Attempts,
			NonRetryableErrorTypes: []string{ErrTypeTaskEnded},
		},
	})
	err := workflow.ExecuteActivity(ctx, TaskActivity, in.Call).Get(ctx, nil)
	if aerr, ok := errors.AsType[*temporal.ApplicationError](err); ok && aerr.Type() == ErrTypeTaskEnded {
		return nil
	}
	if err != nil && !temporal.IsCanceledError(err) {
		// No attempt wrote an outcome: the task's lease lapses, and it
		// reads as failed, its message telling the model to call again.
		workflow.GetLogger(ctx).Warn("durable: a task's call ended without an outcome", "tool", in.Call.Tool, "error", err)
	}
	return err
}

// runTask is TaskActivity: it runs the call on srv, with a heartbeat at a
// third of the heartbeat timeout while it runs.
func runTask(ctx context.Context, srv *mcpserver.Server, call mcpserver.TaskCall) error {
	done := make(chan struct{})
	defer close(done)
	if every := activity.GetInfo(ctx).HeartbeatTimeout / 3; every > 0 {
		go func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					activity.RecordHeartbeat(ctx)
				}
			}
		}()
	}
	err := srv.RunTask(ctx, call)
	switch {
	case errors.Is(err, mcpserver.ErrTaskCallAltered):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeTaskCallAltered, err)
	case errors.Is(err, taskstore.ErrEnded) || errors.Is(err, taskstore.ErrLeaseLost) || errors.Is(err, taskstore.ErrTaskNotFound):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeTaskEnded, err)
	}
	return err
}
