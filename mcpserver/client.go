package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	// ErrUnsupported is matched by the error of Sample or Elicit when the
	// client cannot answer: it did not declare the capability, the call
	// did not come over MCP (Sample), or the transport carries no requests
	// to the client (stateless HTTP on a protocol version before
	// 2026-07-28).
	ErrUnsupported = errors.New("mcpserver: the client cannot answer this request")
	// ErrDeclined is matched by the error of Elicit when the user declined
	// to answer or dismissed the request.
	ErrDeclined = errors.New("mcpserver: the user did not answer")
)

// roundTripsFrom is the first protocol version on which a server may not
// send requests to the client while it serves one: it returns the request
// in its result, and the client calls again with the answer (multi
// round-trip requests, SEP-2322).
const roundTripsFrom = "2026-07-28"

// A peer is the client of the call a handler serves, as far as asking it
// something goes.
type peer struct {
	session    *mcp.ServerSession
	roundTrips bool          // requests go back in the result (see inputRequired)
	answers    *inputAnswers // the answers given in earlier rounds, when roundTrips
	task       *task         // the extension's task whose call asks, which asks through it
	pending    *pendingCall  // the call that may yet become a task, when roundTrips
	ctx        context.Context
}

// A missingCapability is the error of Sample and Elicit when the client
// did not declare the capability they need. It matches ErrUnsupported;
// on protocol versions from 2026-07-28, a call whose handler returns it
// is answered with the protocol's error for it (-32021, Missing Required
// Client Capability: SEP-2575), which names the capability.
type missingCapability struct {
	capability string         // for people: "sampling", "elicitation in url mode"
	required   map[string]any // as the client's capabilities would declare it
}

func (e *missingCapability) Error() string {
	return fmt.Sprintf("%v: %s, which the client did not declare", ErrUnsupported, e.capability)
}

// Unwrap returns ErrUnsupported.
func (e *missingCapability) Unwrap() error { return ErrUnsupported }

// rpcError returns the JSON-RPC error that answers the call.
func (e *missingCapability) rpcError() *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": e.required})
	return &jsonrpc.Error{Code: mcptask.CodeMissingCapability, Message: e.Error(), Data: data}
}

// versionOf returns the protocol version of a call: the one its _meta
// names, else its session's.
func versionOf(req *mcp.CallToolRequest) string {
	if v, ok := req.Params.Meta[mcp.MetaKeyProtocolVersion].(string); ok && v != "" {
		return v
	}
	if req.Session != nil {
		if init := req.Session.InitializeParams(); init != nil {
			return init.ProtocolVersion
		}
	}
	return ""
}

// peerFrom returns the client of the call ctx serves, if it declared
// capability ("sampling" or "elicitation") and the transport can carry a
// request to it.
func peerFrom(ctx context.Context, capability string) (*peer, error) {
	if t := taskOf(ctx); t != nil && t.away {
		return nil, errAway(capability)
	}
	req, ok := RequestFrom(ctx)
	if !ok || req.Session == nil {
		return nil, fmt.Errorf("%w: %s, in a call that did not come over MCP", ErrUnsupported, capability)
	}
	version := versionOf(req)
	init := req.Session.InitializeParams()
	p := &peer{session: req.Session, roundTrips: version >= roundTripsFrom}
	declared := false
	if caps, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok && p.roundTrips {
		_, declared = caps[capability] // this request's own capabilities
	} else if init != nil && init.Capabilities != nil {
		switch capability {
		case "sampling":
			declared = init.Capabilities.Sampling != nil
		case "elicitation":
			declared = init.Capabilities.Elicitation != nil
		}
	}
	if !declared {
		return nil, &missingCapability{capability: capability, required: map[string]any{capability: map[string]any{}}}
	}
	if t := taskOf(ctx); p.roundTrips && t != nil && t.ext {
		// The tasks extension's task asks through the task: the request
		// is among its inputRequests, and tasks/update brings the answer.
		return &peer{session: req.Session, task: t, ctx: ctx}, nil
	}
	if p.roundTrips && taskOf(ctx) != nil {
		// A task's call has answered its request already: there is no
		// result left to carry the request back in.
		return nil, fmt.Errorf("%w: %s, in a task on protocol version %s, where a request to the client goes back in the call's result", ErrUnsupported, capability, version)
	}
	if _, stateless := ctx.Value(httpRequestKey{}).(context.Context); stateless && !p.roundTrips {
		return nil, fmt.Errorf("%w: %s, on stateless HTTP with protocol version %s", ErrUnsupported, capability, version)
	}
	if p.answers, _ = ctx.Value(answersKey{}).(*inputAnswers); p.answers == nil {
		return nil, fmt.Errorf("%w: %s, outside a tools/call", ErrUnsupported, capability)
	}
	if p.roundTrips {
		p.pending, p.ctx = pendingOf(ctx), ctx
	}
	return p, nil
}

// taskAsking returns the task through which a call that may become one
// (a pendingCall) asks its client, once it is one: the handler waits for
// the answer as a task's does. It returns nil for another call, and for
// one that is not a task yet, which asks in its result and will not
// become one (pin).
func (p *peer) taskAsking() *task {
	if p.pending == nil {
		return nil
	}
	return p.pending.pin()
}

// ask returns the client's answer to the handler's next request, named
// by key (WithInputKey) or, if it is "", by its order among the unnamed
// ones: the answer an earlier round of the call got, or, with round
// trips, the *inputRequired error that asks for it, or else the answer
// send gets now, which is kept for the rounds after this one (a handler
// that also asks with tool.Ask runs again, and is not to ask the user
// twice).
func (p *peer) ask(named string, params mcp.InputRequest, send func() (any, error)) (json.RawMessage, error) {
	if p.task != nil {
		method := "elicitation/create"
		if _, ok := params.(*mcp.CreateMessageParams); ok {
			method = "sampling/createMessage"
		}
		return p.task.r.ask(p.ctx, p.task, method, params)
	}
	key, data, err := p.answers.next(named)
	if err != nil {
		return nil, err
	}
	if data != nil {
		return data, nil
	}
	if t := p.taskAsking(); t != nil {
		return (&peer{task: t, ctx: p.ctx}).ask("", params, send)
	}
	if p.roundTrips {
		return nil, &inputRequired{key: key, params: params, state: p.answers.state(key), err: tool.ErrInterrupted}
	}
	res, err := send()
	if err != nil {
		return nil, err
	}
	if data, err = json.Marshal(res); err != nil {
		return nil, err
	}
	p.answers.add(key, data)
	return data, nil
}
