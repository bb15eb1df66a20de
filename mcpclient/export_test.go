package mcpclient

import (
	"context"
	"time"
)

// SetClock makes c poll the tasks of the extension by now and sleep, in
// place of the clock. It is called before c's first call.
func SetClock(c *Client, now func() time.Time, sleep func(context.Context, time.Duration) error) {
	c.now, c.sleep = now, sleep
}
