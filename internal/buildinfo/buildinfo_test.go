package buildinfo

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestFrom(t *testing.T) {
	at := time.Date(2026, 11, 26, 3, 50, 31, 0, time.UTC)
	for _, tt := range []struct {
		name string
		bi   *debug.BuildInfo
		want Info
		text string
	}{
		{name: "no build information", bi: nil, want: Info{Version: "devel"}, text: "devel"},
		{name: "devel without version control", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, want: Info{Version: "devel"}, text: "devel"},
		{name: "empty version", bi: &debug.BuildInfo{}, want: Info{Version: "devel"}, text: "devel"},
		{name: "release", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, want: Info{Version: "v1.2.3"}, text: "v1.2.3"},
		{
			name: "devel with a modified checkout",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "1a6bc8d0c2b7e4f9a1d3c5e7f9b1d3c5e7f9a1b3"},
				{Key: "vcs.time", Value: "2026-11-26T03:50:31Z"},
				{Key: "vcs.modified", Value: "true"},
			}},
			want: Info{Version: "devel", Revision: "1a6bc8d0c2b7e4f9a1d3c5e7f9b1d3c5e7f9a1b3", Time: at, Modified: true},
			text: "devel (rev 1a6bc8d, modified)",
		},
		{
			name: "pseudo-version of a clean checkout",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126035031-1a6bc8d0c2b7"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "1a6bc8d0c2b7e4f9a1d3c5e7f9b1d3c5e7f9a1b3"},
				{Key: "vcs.time", Value: "2026-11-26T03:50:31Z"},
				{Key: "vcs.modified", Value: "false"},
			}},
			want: Info{Version: "v0.0.0-20261126035031-1a6bc8d0c2b7", Revision: "1a6bc8d0c2b7e4f9a1d3c5e7f9b1d3c5e7f9a1b3", Time: at},
			text: "v0.0.0-20261126035031-1a6bc8d0c2b7 (rev 1a6bc8d)",
		},
		{
			name: "short revision, time not RFC 3339",
			bi: &debug.BuildInfo{Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "abc"},
				{Key: "vcs.time", Value: "yesterday"},
			}},
			want: Info{Version: "devel", Revision: "abc"},
			text: "devel (rev abc)",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.bi)
			if got.Version != tt.want.Version || got.Revision != tt.want.Revision || !got.Time.Equal(tt.want.Time) || got.Modified != tt.want.Modified {
				t.Errorf("From(…) = %+v, want %+v", got, tt.want)
			}
			if text := got.String(); text != tt.text {
				t.Errorf("From(…).String() = %q, want %q", text, tt.text)
			}
		})
	}
}
