package main

import (
	"context"
	"errors"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relayElicit passes an upstream's elicitation request, form or URL mode,
// to the client whose call caused it, and that client's answer back (see
// callerOf for which client that is). It refuses with
// mcpclient.ErrUnattributed when no single client's call can have caused
// it: with several clients calling, any guess could show one user's
// question to another. It refuses with mcpserver.ErrUnsupported when that
// client did not declare the capability. A client that takes the request
// in the call's result gets it there (interruptOn). A client whose call
// serve made a task of the tasks extension (2026-07-28) gets it among
// that task's inputRequests, and its answer by tasks/update: the call
// waits for it, and so does the upstream's own task, whose inputRequest
// the request was (mcpclient answers those with the call's context). A
// call that may become such a task becomes one as it relays a request
// (mcpserver.BecomeTask), rather than ask in its result, which would
// cancel the upstream's call, and its task, to call it again.
func relayElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	ctx, done, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	mcpserver.BecomeTask(ctx)
	res, err := mcpserver.ElicitRequest(ctx, req.Params)
	interruptOn(ctx, err)
	return res, err
}

// relaySample passes an upstream's sampling request on as relayElicit
// does.
func relaySample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, done, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	mcpserver.BecomeTask(ctx)
	res, err := mcpserver.Sample(ctx, req.Params)
	interruptOn(ctx, err)
	return res, err
}

// interruptOn ends the call of ctx with err when err says the client takes
// the request in the call's result (protocol versions from 2026-07-28,
// stateless HTTP among them): the call's result asks the client, which
// calls again with the answer; the upstream call is cancelled, and the
// new one's request gets the answer (mcpclient.Interrupt).
func interruptOn(ctx context.Context, err error) {
	if errors.Is(err, tool.ErrInterrupted) {
		mcpclient.Interrupt(ctx, err)
	}
}

// callerOf returns the context of the call of a client of serve that an
// upstream's request, whose context mcpclient chose, belongs to:
//
//   - the call the request names, or, on a stdio upstream, the one call
//     under way on it (mcpclient.Options.Elicit);
//   - on a stdio upstream with several calls under way when the request
//     arrived, the first of them still under way, when they are all one
//     caller's (one session, or one user of a verified token): the
//     question goes to that caller whichever of its calls caused it, and
//     the answer to the upstream's request;
//   - otherwise none: mcpclient.ErrUnattributed.
//
// done releases the context.
func callerOf(ctx context.Context) (_ context.Context, done func(), err error) {
	if _, ok := mcpserver.RequestFrom(ctx); ok {
		return ctx, func() {}, nil
	}
	calls := mcpclient.CallsUnderWay(ctx)
	if len(calls) == 0 {
		return nil, nil, mcpclient.ErrUnattributed
	}
	first, ok := mcpserver.RequestFrom(calls[0])
	if !ok {
		return nil, nil, mcpclient.ErrUnattributed
	}
	var open context.Context // the first call still under way
	for _, c := range calls {
		if req, ok := mcpserver.RequestFrom(c); !ok || !sameCaller(first, req) {
			return nil, nil, mcpclient.ErrUnattributed
		}
		if open == nil && c.Err() == nil {
			open = c
		}
	}
	if open == nil {
		return nil, nil, mcpclient.ErrUnattributed
	}
	call, cancel := context.WithCancel(open)
	stop := context.AfterFunc(ctx, cancel)
	return call, func() { stop(); cancel() }, nil
}

// sameCaller reports whether two calls are one caller's: of one session,
// or of one user of a verified token.
func sameCaller(a, b *mcp.CallToolRequest) bool {
	if a.Session != nil && a.Session == b.Session {
		return true
	}
	userOf := func(r *mcp.CallToolRequest) string {
		if r.Extra == nil || r.Extra.TokenInfo == nil {
			return ""
		}
		return r.Extra.TokenInfo.UserID
	}
	return userOf(a) != "" && userOf(a) == userOf(b)
}
