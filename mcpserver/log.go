package mcpserver

import (
	"context"
	"log/slog"
	"time"

	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Log sends a log message to the client of the call ctx serves
// (notifications/message), if the client asked for messages of this level
// (with logging/setLevel, or with the level it sends in each request on
// later protocol versions). The message's logger is the tool's name; its
// data is msg, or, with args (key-value pairs, as slog takes them), an
// object of msg and the attributes. In a call that did not come over MCP,
// Log does nothing. Levels map to the protocol's at the SDK's mcp.Level
// constants: slog.LevelInfo is "info", slog.LevelWarn "warning", and so on.
//
// Protocol 2026-07-28 deprecates logging (SEP-2577): it still works on
// every revision, but new code should log to standard error (on stdio)
// or through OpenTelemetry (otelhands, log/slog with an OpenTelemetry
// bridge), which the deprecation names as its replacement.
func Log(ctx context.Context, level slog.Level, msg string, args ...any) {
	req, ok := RequestFrom(ctx)
	if !ok || req.Session == nil {
		return
	}
	var data any = msg
	if len(args) > 0 {
		fields := map[string]any{"msg": msg}
		r := slog.NewRecord(time.Time{}, level, msg, 0)
		r.Add(args...)
		r.Attrs(func(a slog.Attr) bool {
			fields[a.Key] = a.Value.Resolve().Any()
			return true
		})
		data = fields
	}
	params := &mcp.LoggingMessageParams{Level: loggingLevel(level), Data: data}
	if call, ok := tool.CallFrom(ctx); ok {
		params.Logger = call.Name
	}
	req.Session.Log(ctx, params) // a message that cannot be sent is lost, like one sent to a closed stream
}

// loggingLevel returns the protocol's name of a level.
func loggingLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l < mcp.LevelInfo:
		return "debug"
	case l < mcp.LevelNotice:
		return "info"
	case l < mcp.LevelWarning:
		return "notice"
	case l < mcp.LevelError:
		return "warning"
	case l < mcp.LevelCritical:
		return "error"
	case l < mcp.LevelAlert:
		return "critical"
	case l < mcp.LevelEmergency:
		return "alert"
	}
	return "emergency"
}
