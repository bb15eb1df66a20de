package mcpclient

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/internal/mcptrace"
	"github.com/hands-go/hands/internal/mcpwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The client reads and marks some of the messages between the SDK and the
// server, where the SDK's types would lose what it needs. Each is a stage
// of the client's wire (internal/mcpwire), and the stages are one list,
// applied in order, once per connection (Client.wire):
//
//   - schemas keeps the schemas of an answer to tools/list as the server
//     wrote them: the SDK decodes them into maps, which forget the order
//     of the properties, which a model reads (keepSent, sentSchema);
//   - calls marks each elicitation/create and sampling/createMessage
//     request the client relays with the call it belongs to (callOf): on
//     the stream of a tools/call over streamable HTTP with that call's
//     progress token (callMetaKey, sealed with the client's secret), and
//     likewise on the stream of a tasks/result with the token of the call
//     that created the task; on any other transport, whose server's
//     requests all come on one stream, with the calls under way when it
//     arrives (markArrival);
//   - trace sends the W3C headers of a call's trace with its HTTP
//     request, for what reads HTTP (a proxy, an HTTP server span); the
//     server reads _meta;
//   - tasks moves what tasks add, which the SDK's types drop (a tool's
//     execution in tools/list, the task of a CreateTaskResult), into
//     _meta, where the SDK keeps them (mcptask.LiftResult), and names the
//     task of a tasks/* request in its HTTP headers (nameTask). When the
//     SDK gains tasks, this stage is the one to delete.
//
// On a connection the SDK reads decoded messages from (Command's, and any
// transport's but streamable HTTP's), the stages read them decoded, in one
// wrapper of the connection. The SDK's streamable HTTP connection cannot
// be wrapped: the SDK tells it of the session through an unexported
// method that a wrapper would hide. There the stages read the messages as
// written, below the SDK, in the one round tripper of its http.Client
// (mcpwire.RoundTripper, which HTTP and HTTPWith also bound bodies and add
// headers with): each POST carries one message of the client's, and its
// response the server's answer, as a JSON body or as a stream of
// server-sent events with the requests the server makes while it works on
// that message. Each body or event is read once, and held no longer than
// one message, within the bound of the transport's MaxEventSize
// (DefaultMaxMessageBytes when it has none); the lift holds no more than
// maxLiftBytes, past which a message passes it as it came.

// callMetaKey is the _meta key of a server's request that names the call
// it belongs to, as the calls stage marks it. Its value is the client's
// secret, a space and the call's progress token: a server cannot make one
// up.
const callMetaKey = "hands/call"

// maxLiftBytes is the largest HTTP body or event that is read whole to be
// lifted, a copy the SDK does not make: a CreateTaskResult is small, and a
// page of tools/list is bounded by Options.MaxToolBytes a tool. A larger
// one passes through as it came, at no cost.
const maxLiftBytes = 4 << 20

// wire returns the stages of c's connections.
func (c *Client) wire() *mcpwire.Wire {
	return &mcpwire.Wire{
		Stages:          []mcpwire.Stage{c.schemaStage(), c.callStage(), traceStage, taskStage},
		MaxMessageBytes: DefaultMaxMessageBytes,
		TooLarge:        tooLarge,
	}
}

// tooLarge is the error of a message of size bytes over limit.
func tooLarge(size, limit int) error {
	return &SizeError{Bytes: size, Limit: limit, Err: ErrMessageTooLarge}
}

// schemaStage keeps the schemas of the answers to tools/list as sent.
func (c *Client) schemaStage() mcpwire.Stage {
	return mcpwire.Stage{
		Name: "schemas",
		Send: func(sent *mcpwire.Message) func(*mcpwire.Message) {
			req := sent.Request("tools/list")
			if req == nil || !req.ID.IsValid() {
				return nil
			}
			return func(m *mcpwire.Message) {
				if data := m.Data(); data != nil {
					c.keepListed(data, req.ID)
				} else if resp, ok := m.Decoded().(*jsonrpc.Response); ok && resp.Error == nil {
					c.keepSent(resp.Result)
				}
			}
		},
	}
}

// relaying reports whether c relays the server's requests.
func (c *Client) relaying() bool { return c.opts.Elicit != nil || c.opts.Sample != nil }

// callStage marks the server's requests to relay with the calls they may
// belong to.
func (c *Client) callStage() mcpwire.Stage {
	return mcpwire.Stage{
		Name: "calls",
		Send: func(sent *mcpwire.Message) func(*mcpwire.Message) {
			if !c.relaying() || sent.Data() == nil {
				return nil // on a connection, a request is marked as it arrives
			}
			req := sent.Request("tools/call", mcptask.MethodResult)
			if req == nil || !req.ID.IsValid() {
				return nil
			}
			var params struct {
				Meta struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
				TaskID string `json:"taskId"` // of tasks/result
			}
			if json.Unmarshal(req.Params, &params) != nil {
				return nil
			}
			token, _ := params.Meta.ProgressToken.(string)
			if req.Method == mcptask.MethodResult {
				token = c.taskToken(params.TaskID)
			}
			if token == "" {
				return nil
			}
			return func(m *mcpwire.Message) {
				if marked := c.markRequest(m.Data(), token); marked != nil {
					m.SetData(marked)
				}
			}
		},
		Receive: func(m *mcpwire.Message) {
			req, ok := m.Decoded().(*jsonrpc.Request)
			if ok && req.ID.IsValid() &&
				((req.Method == "elicitation/create" && c.opts.Elicit != nil) || (req.Method == "sampling/createMessage" && c.opts.Sample != nil)) {
				// A request to relay: the calls under way now are those it
				// may belong to (callOf).
				req.Params = c.markArrival(req.Params)
			}
		},
	}
}

// traceStage sends the W3C headers of a call's trace with its HTTP
// requests.
var traceStage = mcpwire.Stage{
	Name: "trace",
	Request: func(r *http.Request, _ *mcpwire.Message) *http.Request {
		if !mcptrace.Carries(r.Context()) {
			return r
		}
		r = r.Clone(r.Context())
		mcptrace.InjectHeader(r.Context(), r.Header)
		return r
	},
}

// taskStage lifts what tasks add into _meta, and names the task of a
// tasks/* request in its headers.
var taskStage = mcpwire.Stage{
	Name:    "tasks",
	Request: nameTask,
	Receive: liftMessage,
	Max:     maxLiftBytes,
}

// liftMessage lifts the result of m, when it is a response.
func liftMessage(m *mcpwire.Message) {
	if data := m.Data(); data != nil {
		if lifted := mcptask.LiftResponse(data); !bytes.Equal(lifted, data) {
			m.SetData(lifted)
		}
		return
	}
	if resp, ok := m.Decoded().(*jsonrpc.Response); ok && resp.Result != nil {
		resp.Result = mcptask.LiftResult(resp.Result)
	}
}

// keepListed keeps the schemas of data when it is the answer to the
// tools/list request id.
func (c *Client) keepListed(data []byte, id jsonrpc.ID) {
	var resp struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &resp) != nil || len(resp.Result) == 0 {
		return
	}
	if got, err := jsonrpc.MakeID(resp.ID); err != nil || got != id {
		return
	}
	c.keepSent(resp.Result)
}

// markRequest returns data, a message on the stream of the call whose
// progress token is token, with the call named in its _meta when it is a
// request the client relays; else nil, for data as it is.
func (c *Client) markRequest(data []byte, token string) []byte {
	if !bytes.Contains(data, []byte(`\`)) && !bytes.Contains(data, []byte(`"elicitation/create"`)) && !bytes.Contains(data, []byte(`"sampling/createMessage"`)) {
		// Not a request the client relays: without an escape in it, a
		// message names its method as it is, so one that holds neither
		// name is not one (progress notifications, answers). A message
		// with an escape is decoded, since its method or even its
		// member names may be written with one.
		return nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(data, &msg) != nil || len(msg["id"]) == 0 {
		return nil
	}
	var method string
	json.Unmarshal(msg["method"], &method)
	if method != "elicitation/create" && method != "sampling/createMessage" {
		return nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return nil // the SDK refuses it
	}
	var meta map[string]any
	if len(params["_meta"]) > 0 && json.Unmarshal(params["_meta"], &meta) != nil {
		return nil
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[callMetaKey] = c.secret + " " + token
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return nil
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return nil
	}
	return out
}
