package bytesize

import "testing"

func TestText(t *testing.T) {
	for n, want := range map[int]string{
		0:             "0 bytes",
		1000:          "1000 bytes",
		1 << 10:       "1 KiB",
		3 << 10:       "3 KiB",
		10 << 20:      "10 MiB",
		1<<20 + 1<<10: "1025 KiB",
		1<<20 + 1:     "1048577 bytes",
	} {
		if got := Text(n); got != want {
			t.Errorf("Text(%d) = %q, want %q", n, got, want)
		}
	}
}
