package mcpwire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lines reads every line of input with a LineReader of limit, its reads
// of the source split by split, and returns them, a line over the limit
// as "!" and its head, and the error that ends them.
func lines(input string, limit int, split func(io.Reader) io.Reader) ([]string, error) {
	l := NewLineReader(split(strings.NewReader(input)), limit)
	var got []string
	for {
		line, err := l.Next()
		switch {
		case errors.Is(err, ErrLineTooLong):
			got = append(got, "!"+string(line))
		case err != nil:
			return got, err
		default:
			got = append(got, string(line))
		}
	}
}

// TestLineReader checks the lines a LineReader reads: trimmed, blank
// ones skipped, the last one without its line break, and one over the
// limit reported by its head and a *LineError, the lines after it read
// on.
func TestLineReader(t *testing.T) {
	for _, tt := range []struct {
		name, input string
		limit       int
		want        []string
	}{
		{"lines", "a\nbb\r\n\n  \t\nccc", 10, []string{"a", "bb", "ccc"}},
		{"at the limit", "12345\n1234567\n1234\n", 5, []string{"12345", "!123456", "1234"}},
		{"the last over the limit", "1\n1234567", 5, []string{"1", "!123456"}},
		{"a carriage return counts", "1234\r\n12345\r\n", 5, []string{"1234", "!12345\r"}},
		{"white space counts", "      \n1", 5, []string{"!      ", "1"}},
		{"long lines", strings.Repeat("x", 9000) + "\n" + strings.Repeat("y", 20000) + "\nz\n", 10000, []string{strings.Repeat("x", 9000), "!" + strings.Repeat("y", jsonrpcwire.HeadBytes), "z"}},
	} {
		for name, split := range map[string]func(io.Reader) io.Reader{"whole": func(r io.Reader) io.Reader { return r }, "a byte a read": iotest.OneByteReader} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				got, err := lines(tt.input, tt.limit, split)
				if err != io.EOF {
					t.Errorf("ended with %v, want io.EOF", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("lines of %.50q = %.100q, want %.100q", tt.input, got, tt.want)
				}
			})
		}
	}
}

// TestLineErrorSame checks that a line over the limit is one error for
// both ends of a stdio connection: the *LineError a server answers with
// (Next) is the one a client ends with (Message).
func TestLineErrorSame(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 100) + `"}` + "\n"
	_, serverErr := NewLineReader(strings.NewReader(input), 50).Next()
	_, clientErr := NewLineReader(strings.NewReader(input), 50).Message()
	want := &LineError{Limit: 50, Err: ErrLineTooLong}
	if !reflect.DeepEqual(serverErr, want) || !reflect.DeepEqual(clientErr, want) {
		t.Errorf("Next: %v, Message: %v; want both %#v", serverErr, clientErr, want)
	}
	if !errors.Is(serverErr, ErrLineTooLong) || serverErr.Error() != "the line is over the limit of 50 bytes" {
		t.Errorf("the error %q does not match ErrLineTooLong or does not say the limit", serverErr)
	}
}

// TestLineReaderReadsNoFurther checks that a LineReader reads no more of
// a line over the limit than the limit and one byte, whatever the size of
// its reads, so that a client stops there.
func TestLineReaderReadsNoFurther(t *testing.T) {
	for _, limit := range []int{1, 100, 5000, 70000} {
		src := &counting{r: strings.NewReader(strings.Repeat("x", 3*limit+10000))}
		if _, err := NewLineReader(src, limit).Message(); !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("limit %d: %v, want ErrLineTooLong", limit, err)
		}
		if src.n != limit+1 {
			t.Errorf("limit %d: read %d bytes, want %d", limit, src.n, limit+1)
		}
	}
}

// counting counts the bytes read from r.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestMessage checks what a client reads: messages, one a line or over
// several while an object or array is open, and the error that ends them.
func TestMessage(t *testing.T) {
	const resp = `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, tt := range []struct {
		name, input string
		n           int   // messages read
		err         error // what ends them
	}{
		{"lines", resp + "\n" + resp + "\r\n", 2, io.EOF},
		{"split", "{\"jsonrpc\":\"2.0\",\n\n  \"id\":1,\n\"result\":[1,\n2]}\n" + resp, 2, io.EOF},
		{"a brace in a string", "{\"jsonrpc\":\"2.0\",\"id\":\"{\",\n\"result\":\"}\\\"\"}\n", 1, io.EOF},
		{"cut short", "{\"jsonrpc\":\"2.0\",\n", 0, io.ErrUnexpectedEOF},
		{"trailing", resp + " {}\n", 0, ErrNotJSON},
		{"a string over lines", "{\"jsonrpc\":\"2.0\",\"id\":\"a\nb\"}\n", 0, ErrNotJSON},
		{"batch", "[" + resp + "]\n", 0, ErrBatch},
		{"not JSON-RPC", `{"jsonrpc":"1.0","id":1,"result":{}}` + "\n", 0, ErrInvalidMessage},
		{"over the limit joined", "{\"jsonrpc\":\"2.0\",\n\"id\":1,\n\"result\":\"" + strings.Repeat("a", 80) + "\"}\n", 0, ErrLineTooLong},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLineReader(iotest.HalfReader(strings.NewReader(tt.input)), 100)
			n := 0
			for {
				msg, err := l.Message()
				if err != nil {
					if !errors.Is(err, tt.err) {
						t.Errorf("ended with %v, want %v", err, tt.err)
					}
					break
				}
				if _, ok := msg.(*jsonrpc.Response); !ok {
					t.Errorf("message %d = %#v, want a response", n, msg)
				}
				n++
			}
			if n != tt.n {
				t.Errorf("read %d messages, want %d", n, tt.n)
			}
		})
	}
}

// FuzzLineReader checks a LineReader, reading a byte at a time and in
// reads of any size, against bytes.Split: the same lines, trimmed, blank
// ones skipped, those over the limit reported by their head; and that
// its buffer holds no more than the limit and a read.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"a\nbb\r\n\n  \t\nccc", "12345\n123456\n1234\n", "\n\n\n", "x", " \r\n", strings.Repeat("y", 100) + "\nz"} {
		f.Add(s, uint8(5), uint8(3))
	}
	f.Fuzz(func(t *testing.T, input string, limit, chunk uint8) {
		max := int(limit)%64 + 1
		var want []string
		for _, line := range bytes.Split([]byte(input), []byte("\n")) {
			switch {
			case len(line) > max:
				want = append(want, "!"+string(line[:min(max+1, jsonrpcwire.HeadBytes)]))
			case len(bytes.Trim(line, " \t\r")) > 0:
				want = append(want, string(bytes.Trim(line, " \t\r")))
			}
		}
		size := int(chunk)%16 + 1
		got, err := lines(input, max, func(r io.Reader) io.Reader { return &chunked{r, size} })
		if err != io.EOF {
			t.Fatalf("ended with %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lines of %q (limit %d, %d bytes a read) = %q, want %q", input, max, size, got, want)
		}
	})
}

// chunked reads at most size bytes a read from r.
type chunked struct {
	r    io.Reader
	size int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.size)]) }
