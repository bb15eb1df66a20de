// Package mcpwire is the wire of MCP in hands: the one place that frames
// messages, bounds them, and applies a client's stages to them.
//
// # Framing
//
// Over stdio a message is a line. A LineReader reads the lines of a
// connection, each up to a limit (DefaultMaxLineBytes, 16 MiB, unless
// told otherwise), for both ends: mcpserver's StdioTransport reads its
// input with Next and DecodeLine, answering a line that holds no message
// and reading on; mcpclient's CommandTransport reads a server's output
// with Message, which also joins a message split over lines, as the SDK
// reads it, and ends the connection at the first that holds none. A line
// over the limit is the same *LineError at both ends (ErrLineTooLong),
// read no further than the limit and one byte. EncodeLine writes a
// message and its line break. Messages are decoded and encoded by
// internal/jsonrpcwire, as the SDK's jsonrpc package does, without its
// 32 KiB buffer a message.
//
// Over streamable HTTP a message is a JSON body or the data of a
// server-sent event. A RoundTripper bounds the bodies (MaxBody), reads
// each event once, holding it no longer than a message, and hands the
// SDK the events or body as the stages left them.
//
// # Stages
//
// A Stage is one step of a client's wire: it sees each message the
// client sends (Send), each message that answers it, and each message
// read (Receive). A Wire is a client's stages, in order, and its bounds;
// Wire.Transport applies them once per connection: in one wrapper of a
// connection the SDK reads decoded messages from (Wire.Conn), or, over
// streamable HTTP, whose connection the SDK does not let be wrapped (it
// tells it of the session through an unexported method), in the one
// RoundTripper of its http.Client, on the messages as written. A Message
// is a message in whichever of the two forms its transport has; a stage
// reads the form it is handed.
package mcpwire
