package mcpserver

import (
	"encoding/json"
	"math"

	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
func progressOf(v any) (tool.ProgressReport, bool) {
	switch v := v.(type) {
	case tool.ProgressReport:
		return v, true
	case *tool.ProgressReport:
		if v != nil {
			return *v, true
		}
		return tool.ProgressReport{}, false
	case string:
		return tool.ProgressReport{Message: v}, false
	case float64:
		return tool.ProgressReport{Done: v}, true
	case float32:
		return tool.ProgressReport{Done: float64(v)}, true
	case int:
		return tool.ProgressReport{Done: float64(v)}, true
	case int64:
		return tool.ProgressReport{Done: float64(v)}, true
	case int32:
		return tool.ProgressReport{Done: float64(v)}, true
	case uint:
		return tool.ProgressReport{Done: float64(v)}, true
	case uint64:
		return tool.ProgressReport{Done: float64(v)}, true
	case uint32:
		return tool.ProgressReport{Done: float64(v)}, true
	}
	data, err := json.Marshal(v)
	if err != nil {
		return tool.ProgressReport{}, false
	}
	return tool.ProgressReport{Message: string(data)}, false
}
