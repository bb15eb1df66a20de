package mcpserver

import (
	"encoding/json"
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Progress is a progress report that says how far a call has got. A
// handler passes it to tool.Progress when it knows its numbers:
//
//	tool.Progress(ctx, mcpserver.Progress{Done: 3, Total: 10, Message: "page 3 of 10"})
//
// Other values are reported too: a number is the progress value, as Done
// with no Total, and anything else is a message (a string as it is, other
// values as JSON).
type Progress struct {
	Done    float64 // how much is done, in any unit; it should grow from report to report
	Total   float64 // how much there is to do, in the same unit; zero when not known
	Message string  // for people; may be empty
}

// A progressCounter turns a call's progress reports into the params of
// notifications/progress, whose progress value must increase with each
// notification.
type progressCounter struct {
	last  float64 // the progress value last sent
	total float64 // the total last reported, kept for later reports
}

// next returns the notification for one report. The value is Done when it
// is above the last value sent; otherwise a report without a number of its
// own counts one more (1, 2, 3, ... for reports that are only messages), and
// one whose number fell behind, or that comes once a total is known, gets
// the smallest value above the last, so the value never goes back and
// stays within the total unless a report comes after the work is all done.
func (p *progressCounter) next(token any, v any) *mcp.ProgressNotificationParams {
	r, numbered := progressOf(v)
	if r.Total > 0 {
		p.total = r.Total
	}
	switch {
	case numbered && r.Done > p.last:
		p.last = r.Done
	case !numbered && p.total == 0:
		p.last = math.Floor(p.last) + 1
	default:
		p.last = math.Nextafter(p.last, math.Inf(1))
	}
	return &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p.last, Total: p.total, Message: r.Message}
}

// progressOf reads a value passed to tool.Progress, and reports whether it
// carried a number.
func progressOf(v any) (Progress, bool) {
	switch v := v.(type) {
	case Progress:
		return v, true
	case *Progress:
		if v != nil {
			return *v, true
		}
		return Progress{}, false
	case string:
		return Progress{Message: v}, false
	case float64:
		return Progress{Done: v}, true
	case float32:
		return Progress{Done: float64(v)}, true
	case int:
		return Progress{Done: float64(v)}, true
	case int64:
		return Progress{Done: float64(v)}, true
	case int32:
		return Progress{Done: float64(v)}, true
	case uint:
		return Progress{Done: float64(v)}, true
	case uint64:
		return Progress{Done: float64(v)}, true
	case uint32:
		return Progress{Done: float64(v)}, true
	}
	data, err := json.Marshal(v)
	if err != nil {
		return Progress{}, false
	}
	return Progress{Message: string(data)}, false
}
