// Package warmstack runs calls on goroutines whose stacks have already
// grown.
//
// A goroutine starts with a small stack and doubles it, copying every
// frame, each time a call goes deeper than the stack reaches. A server
// whose library starts a goroutine for each request pays for that growth
// on every request: in hands serve, answering one tools/call through an
// upstream goes deep (the tool's timeout, its validation, the MCP client,
// the SDK's JSON decoder), and the copies cost about 20 µs of a call's
// latency and CPU, more than the validation itself. A Pool hands such a
// call to a goroutine it keeps between calls, whose stack is still large
// from the call before; the hand-over costs two goroutine switches.
//
// The same technique is behind grpc-go's NumStreamWorkers.
package warmstack
