// Package replay serves API responses to a vendor SDK in tests, on a local
// server, and keeps the requests the SDK sent, so that the adapters' tests
// run without the network and can compare those requests with golden files.
//
// The responses come in two kinds, kept apart under each adapter's
// testdata/:
//
//   - Hand-written fixtures (testdata/*.response.json), in each API's
//     documented wire format, for the cases no published recording covers:
//     errors, refusals, truncations, the conformance kit's exchange.
//   - Traffic recorded against the live services and published by other
//     projects (testdata/recorded/), copied unmodified: langchaingo's
//     httprr traces ([LoadHTTPRR]) and the VCR cassettes of pydantic-ai
//     and dd-trace-py ([LoadCassette]). Each directory's manifest.json
//     names every file's repository, path, commit, Git blob ID and
//     license, and [CheckManifest] fails a test when a copy differs from
//     its source.
//
// A hand-written response is a JSON file that says so:
//
//	{
//	  "source": "hand-written",
//	  "status": 429,
//	  "header": {"Retry-After": "0"},
//	  "body": {"error": {"type": "rate_limit_error", "message": "..."}}
//	}
//
// A hand-written stream of server-sent events has "events" in place of
// "body", each with the event's name, if it has one, and its data:
//
//	{
//	  "source": "hand-written",
//	  "events": [
//	    {"event": "message_start", "data": {"type": "message_start", ...}},
//	    {"data": "[DONE]"}
//	  ]
//	}
//
// The server sends them as text/event-stream, each data value on one line:
// a JSON string as its text, any other value as compact JSON. A recorded
// response is sent as it was recorded: its status, its headers and its
// body byte for byte ([Response.Raw]).
//
// A test starts a [Server] with a function that picks the answer to each
// request — [Always], [Sequence], or [AfterResult] for a two-turn exchange —
// points the adapter's BaseURL at [Server.URL], and afterwards compares
// [Request.Golden] with a golden file.
package replay
