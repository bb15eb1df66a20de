package compat

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// A Waiver accepts the changes of one tool at one place that a reviewer
// has decided may break, so that a check in CI passes while they are
// waived, as buf's ignore lists and oasdiff's and Confluent's per-change
// exceptions do. It names the changes of Tool whose Pointer is Pointer or
// lies under it; an empty Pointer names all of the tool's changes.
type Waiver struct {
	Tool    string
	Pointer string
	// Reason is why the change is accepted, for people; it does not
	// change what the waiver names.
	Reason string
}

// Covers reports whether w names the change c.
func (w Waiver) Covers(c Change) bool {
	if c.Tool != w.Tool {
		return false
	}
	return w.Pointer == "" || c.Pointer == w.Pointer || strings.HasPrefix(c.Pointer, w.Pointer+"/")
}

// ParseWaivers reads waivers, one a line: the tool's name, then after
// white space the JSON Pointer of the changes into the tool (none for all
// of them), then after "#" the reason. Blank lines and lines that start
// with "#" are skipped:
//
//	# reviewed in #123: no caller sends more than 5 days
//	forecast /inputSchema/properties/days/maximum  # callers send at most 5
//	legacy_search                                  # removed on purpose
func ParseWaivers(data []byte) ([]Waiver, error) {
	var out []Waiver
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, reason := sc.Text(), ""
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for i := 1; i < len(line); i++ {
			if line[i] == '#' && (line[i-1] == ' ' || line[i-1] == '\t') {
				line, reason = line[:i], line[i+1:]
				break
			}
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case len(fields) > 2:
			return nil, fmt.Errorf("compat: waivers: line %d: want a tool's name and a JSON Pointer, got %q", n, strings.TrimSpace(line))
		}
		w := Waiver{Tool: fields[0], Reason: strings.TrimSpace(reason)}
		if len(fields) == 2 {
			w.Pointer = fields[1]
			if w.Pointer == "/" {
				w.Pointer = ""
			}
			if w.Pointer != "" && !strings.HasPrefix(w.Pointer, "/") {
				return nil, fmt.Errorf("compat: waivers: line %d: %q is not a JSON Pointer (it starts with /)", n, w.Pointer)
			}
		}
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("compat: waivers: %w", err)
	}
	return out, nil
}

// Waive marks Accepted each change among changes that breaks and that a
// waiver names, and returns the changes and the waivers that named none
// of them: a waiver left over is stale (the change it was written for is
// gone, or was never there), which a check should say.
func Waive(changes []Change, waivers []Waiver) (out []Change, unused []Waiver) {
	out = make([]Change, len(changes))
	copy(out, changes)
	used := make([]bool, len(waivers))
	for i, c := range out {
		if !c.Breaks() {
			continue
		}
		for j, w := range waivers {
			if w.Covers(c) {
				out[i].Effect = Accepted
				used[j] = true
			}
		}
	}
	for j, w := range waivers {
		if !used[j] {
			unused = append(unused, w)
		}
	}
	return out, unused
}
