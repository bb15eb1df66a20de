// Package replay serves recorded API responses to a vendor SDK in tests, on
// a local server, and keeps the requests the SDK sent, so that the adapters'
// tests run without the network and can compare those requests with golden
// files.
//
// A recorded response is a JSON file under testdata/:
//
//	{
//	  "status": 429,
//	  "header": {"Retry-After": "0"},
//	  "body": {"error": {"type": "rate_limit_error", "message": "..."}}
//	}
//
// A recorded stream of server-sent events has "events" in place of
// "body", each with the event's name, if it has one, and its data:
//
//	{
//	  "events": [
//	    {"event": "message_start", "data": {"type": "message_start", ...}},
//	    {"data": "[DONE]"}
//	  ]
//	}
//
// The server sends them as text/event-stream, each data value on one line:
// a JSON string as its text, any other value as compact JSON.
//
// A test starts a [Server] with a function that picks the answer to each
// request — [Always], [Sequence], or [AfterResult] for a two-turn exchange —
// points the adapter's BaseURL at [Server.URL], and afterwards compares
// [Request.Golden] with a golden file.
package replay
