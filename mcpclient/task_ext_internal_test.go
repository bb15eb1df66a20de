package mcpclient

import (
	"testing"
	"time"
)

// TestHeaderValue writes a task ID in Mcp-Name as it is, or in Base64
// where a header cannot carry it as it is (SEP-2243).
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"ht1.AbC-_9":      "ht1.AbC-_9",
		"tâche":           "=?base64?dMOiY2hl?=",
		" padded":         "=?base64?IHBhZGRlZA==?=",
		"line\nbreak":     "=?base64?bGluZQpicmVhaw==?=",
		"=?base64?eA==?=": "=?base64?PT9iYXNlNjQ/ZUE9PT89?=",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNextPoll: the wait before a tasks/get is the server's interval,
// within bounds, then half again as long each time, up to five seconds
// or the server's interval when that is longer.
func TestNextPoll(t *testing.T) {
	for _, tc := range []struct {
		last     time.Duration
		interval int64
		want     time.Duration
	}{
		{0, 2000, 2 * time.Second},
		{2 * time.Second, 2000, 3 * time.Second},
		{4 * time.Second, 2000, 5 * time.Second},
		{5 * time.Second, 2000, 5 * time.Second},
		{0, 0, 100 * time.Millisecond},
		{0, -5, 100 * time.Millisecond},
		{0, 1, 100 * time.Millisecond},
		{0, 30_000, 30 * time.Second},
		{30 * time.Second, 30_000, 30 * time.Second},
		{0, 1 << 62, time.Minute},
		{time.Second, 2000, 2 * time.Second}, // the interval grew: no shorter than it
	} {
		if got := nextPoll(tc.last, tc.interval); got != tc.want {
			t.Errorf("nextPoll(%v, %d) = %v, want %v", tc.last, tc.interval, got, tc.want)
		}
	}
}
