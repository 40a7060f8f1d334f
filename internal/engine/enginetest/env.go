package enginetest

import (
	"flag"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// The test environment: what a test needs beyond Go, and what -short
// leaves out. `go test -short ./...` is the suite a developer runs all
// day: it skips what needs root and devices, fio, or a long simulated
// run, each skip saying which; `go test ./...` (CI) runs them all.

// NeedRoot skips the test unless it runs as root with the named commands.
// Under -short it skips: what needs root here makes loop devices, mounts
// or fio servers.
func NeedRoot(t testing.TB, commands ...string) {
	t.Helper()
	if testing.Short() {
		if slices.Contains(commands, "fio") {
			t.Skip("-short: needs fio and root (loop devices or fio servers)")
		}
		t.Skip("-short: needs root (loop devices, mounts)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (loop devices); CI runs it as root")
	}
	for _, c := range commands {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("needs %s (Debian: apt-get install %s)", c, pkgOf(c))
		}
	}
}

// NeedFio skips the test unless fio is installed, and under -short.
func NeedFio(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs fio")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (Debian: apt-get install fio); CI installs it")
	}
}

// Long skips the test under -short; why says what makes it long ("a
// simulated DIRTH run and three resumed ones").
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + why)
	}
}

// WaitBound is for the TestMain of a package whose tests mostly wait on
// cells of real I/O of fixed times, each on devices of its own (t.Parallel):
// it lets n run at once, unless -parallel says otherwise, rather than one
// per CPU, which keeps a 2-CPU machine busy without stretching them. A
// cell of fixed time takes as long on a busy machine, so the waits overlap
// (cmd/ptsrun's tests alone, on 2 CPUs: 238 s with four, 187 s with eight,
// 129 s with sixteen). It parses the flags.
func WaitBound(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(n, runtime.GOMAXPROCS(0))))
	}
}
