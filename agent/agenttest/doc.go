// Package agenttest provides what tests of agents and of model adapters
// need.
//
// # A scripted model
//
// [Script] is an agent.Model that plays back responses, one per turn, and
// records the requests it was sent. It drives agent.Run in tests and
// examples without a provider. It is an agent.StreamingModel too: a script
// made with [NewStreamScript] yields each turn's deltas ([Streamed] makes
// a turn of text pieces) before its response, so a user interface built on
// agent.Stream can be tested as well.
//
// # A conformance kit for adapters
//
// [TestModel] checks that an agent.Model keeps the contract agent.Run relies
// on, as testing/slogtest does for slog handlers. It drives one fixed
// exchange (the user asks about the weather in two cities, the model calls
// [WeatherTool] for each, one call fails, and the model answers in text) and
// checks that every call has an ID, that every result reaches the model
// matched to its call, that text comes back, that Generate leaves its
// request alone, that the history it is given after a JSON round trip is
// enough to continue, that finish reasons, when reported, fit the turn,
// that a StreamingModel's deltas add up to its response, and that a
// cancelled context is reported as such.
//
// Each provider adapter runs it in its tests against a local server that
// replays the exchange, scripted in hand-written responses:
//
//	func TestConformance(t *testing.T) {
//		m := newModelOnReplayServer(t) // first the two calls, then the answer
//		agenttest.TestModel(t, m)
//	}
//
// The constants [System], [Prompt], [WeatherTool], [WeatherReport] and
// [NoStation] say what such a recording must contain.
package agenttest
