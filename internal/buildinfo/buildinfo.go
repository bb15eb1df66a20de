package buildinfo

import (
	"runtime/debug"
	"time"
)

// Info is the version of a program as its build recorded it.
type Info struct {
	// Version is the main module's version, such as "v1.2.3", or "devel"
	// when the build recorded none (a build with -buildvcs=false, go run,
	// a test).
	Version string
	// Revision is the version control revision the program was built
	// from (the build setting vcs.revision); empty when not recorded.
	Revision string
	// Time is the time of that revision (vcs.time); zero when not
	// recorded.
	Time time.Time
	// Modified reports that the working tree had uncommitted changes
	// (vcs.modified).
	Modified bool
}

// Read returns the version of the running program.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return From(bi)
}

// From returns the version recorded in bi, which may be nil.
func From(bi *debug.BuildInfo) Info {
	info := Info{Version: "devel"}
	if bi == nil {
		return info
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		info.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time, _ = time.Parse(time.RFC3339, s.Value)
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String returns the version, then the revision cut to seven characters
// and whether it was modified, when the build recorded them:
// "v1.2.3", "devel (rev 1a6bc8d)" or "devel (rev 1a6bc8d, modified)".
func (i Info) String() string {
	if i.Revision == "" {
		return i.Version
	}
	rev := i.Revision
	if len(rev) > 7 {
		rev = rev[:7]
	}
	s := i.Version + " (rev " + rev
	if i.Modified {
		s += ", modified"
	}
	return s + ")"
}
