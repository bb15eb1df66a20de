// Package bytesize writes byte counts for the messages a model reads.
package bytesize

import "fmt"

// Text writes a byte count in the largest binary unit that divides it,
// such as "10 MiB", "3 KiB" or "1000 bytes".
func Text(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
