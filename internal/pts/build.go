package pts

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Build is the ptsrun binary that wrote a run.json (RunInfo.Build): its
// version, the commit it was built from and the Go release, so that two
// builds of one version tell apart. A run.json older than it has none.
type Build struct {
	Version string `json:"version"`
	// Commit is the commit go build stamped (-buildvcs); "" when it did
	// not (go run, go test, GOFLAGS=-buildvcs=false).
	Commit string `json:"commit,omitempty"`
	// Modified says the work tree it was built from had changes.
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ThisBuild is the running binary's build, of ptsrun version version.
func ThisBuild(version string) Build {
	bi, _ := debug.ReadBuildInfo()
	return buildOf(version, bi)
}

// buildOf reads the build of version from bi (nil: not known).
func buildOf(version string, bi *debug.BuildInfo) Build {
	b := Build{Version: version, Go: runtime.Version()}
	if bi == nil {
		return b
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the build as --version prints it: "0.1.0 (commit 1d4f9bc2a0e1,
// modified, go1.26.8)", or "0.1.0 (go1.26.8)" without a commit.
func (b Build) String() string {
	if b.Commit == "" {
		return fmt.Sprintf("%s (%s)", b.Version, b.Go)
	}
	modified := ""
	if b.Modified {
		modified = ", modified"
	}
	return fmt.Sprintf("%s (commit %s%s, %s)", b.Version, b.Commit[:min(12, len(b.Commit))], modified, b.Go)
}
