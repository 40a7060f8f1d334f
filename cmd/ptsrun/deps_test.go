package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/architecture.md, "Data flows one way": target (device) → precondition → runner
// (pts, engine, steadystate) → results (matrix) → report (pdfreport) →
// regression (golden). A package may import what lies upstream of it, never
// downstream; steadystate imports no project package; pdfreport runs no
// I/O and reads no files; nothing imports cmd/ptsrun. "A test asserts this
// with go list -deps, test imports included": this one.
//
// Every package but cmd/ptsrun is below internal/: ptsrun's interfaces
// are its command line and its files, not a Go API. The rows name them
// without that prefix.
//
// allowedImports is that graph written out, one row per package, every
// sub-package its own: a package imports only the project packages its row
// lists, and every pair not listed is forbidden. Test files may also import
// the test fixtures below.
var allowedImports = []struct {
	pkg     string
	imports []string
	why     string
}{
	{"steadystate", nil,
		"pure math, a series in and a verdict out: no project package, tests included"},
	{"cpuhog", nil,
		"busy processes beside a test, to run it loaded as CI does: it knows nothing of storage"},
	{"cpuhog/cmd/cpuhog", []string{"cpuhog"}, "runs a command beside the hogs"},
	{"confine", nil,
		"holds a command to writing only where it is told (Landlock): it knows nothing of storage or fio"},
	{"jsonfmt", nil,
		"the layout of the run directory's JSON files (indented, a record of scalars on one line): it knows nothing of storage"},
	{"cpuidle", nil,
		"the host's idle CPUs: their states read from sysfs, and the kernel's PM QoS request that keeps them quick to wake while ptsrun measures: it knows nothing of storage"},
	{"units", nil,
		"sizes written and read one way (binary units, block sizes in KiB as the PTS writes them): every package speaks them, they need none"},
	{"engine", []string{"units"},
		"the engine contract (one workload in, one measurement out): every package speaks it; its block sizes are written and read in units"},
	{"device", []string{"units", "cpuidle"},
		"the target is where the data starts: identity, capacity and safety, its sizes in units; it knows no engine, which drives what device describes; the host's record says what its idle CPUs were held to (cpuidle)"},
	{"engine/native", []string{"engine", "device", "cpuidle"}, "an engine behind the contract; its benchmarks hold the host's idle CPUs as a run does (cpuidle: tests only, see restrictedUses)"},
	{"engine/fio", []string{"engine", "device", "confine"}, "an engine behind the contract; a user's job files run confined"},
	{"engine/sim", []string{"engine", "device"}, "an engine behind the contract"},
	{"engine/enginetest", []string{"engine", "device", "units"}, "the conformance suite every engine passes"},
	{"precondition", []string{"device", "engine"},
		"purges a target and preconditions it through an engine"},
	{"pts", []string{"device", "engine", "precondition", "steadystate", "units", "telemetry", "cpuidle"},
		"the runner: target, purge and preconditioning, engine.Run per cell, steadystate after each round, the journal, the drives' telemetry read between cells (telemetry); the configuration's --cpu-idle checked as cpuidle reads it"},
	{"presets", []string{"engine", "pts"},
		"the named workloads of workload --preset: engine workloads, the WSAT stimuli and the PTS-E load taken from pts"},
	{"matrix", []string{"device", "engine", "pts", "steadystate", "units", "telemetry", "jsonfmt"},
		"turns the journal's records (pts) of measurements (engine) into results; what the purge did reaches it in those records, not from precondition"},
	{"comparison", []string{"pts", "matrix"},
		"the model of ptsrun compare: runs' results (matrix) lined up by test (pts) against a reference; golden makes it, pdfreport draws it"},
	{"pdfreport", []string{"device", "engine", "pts", "steadystate", "matrix", "units", "comparison", "presets", "streams", "telemetry"},
		"draws the results and run information it is given (a cell's preset described as presets describes it, a drive's readings as telemetry holds them), a comparison (comparison) and a capture's characterisation (streams), and runs nothing"},
	{"importer", []string{"device", "engine", "engine/fio", "pts", "matrix", "units", "pdfreport"},
		"import: results ptsrun did not produce (fio output, read with the fio engine's parser; published tables) made into a run's records (pts) and results (matrix); its tests build an imported run's report (pdfreport: tests only, see restrictedUses)"},
	{"golden", []string{"device", "engine", "pts", "steadystate", "matrix", "comparison", "pdfreport", "units", "importer"},
		"compares results (check, compare; check fits a baseline window's trend by the steady-state rule's least squares): compare makes the comparison (comparison) that pdfreport draws; its tests draw it and compare imported tables (pdfreport, importer: tests only, see restrictedUses)"},
	{"golden/goldentest", []string{"device", "engine", "engine/sim", "precondition", "pts", "steadystate", "matrix"},
		"test wiring: a simulated run from target to results, as cmd wires a real one"},
	{"targets", []string{"device", "engine", "engine/native", "engine/fio", "engine/sim", "precondition", "units", "telemetry", "cpuidle"},
		"the target set: from the targets a user names to a checked plan, an opened engine and the purge and write cache of the devices behind it, and the telemetry sources of its drives (telemetry; a simulated drive's model read as one); the host's idle CPUs held while local targets are open (cpuidle); beside precondition, before pts in the data flow (pts runs what it opens, never opens it)"},
	{"fiojobs", []string{"device", "engine", "engine/fio", "confine"},
		"`ptsrun fio`: a user's job files read by fio, judged by the gate against the devices and files they would write (device's safety gate), and run confined (confine) by the fio engine's runner of user job files; it opens no target set, so it needs no targets"},
	{"telemetry", []string{"device"},
		"a drive's temperature and health from the sources its sysfs identity (device.Block) says it has: hwmon, nvme-cli, smartctl; it runs no I/O of its own and writes nothing"},
	{"vdbench", []string{"engine", "units"},
		"reads vdbench parameter files into the engine's workloads: parsing and translation, pure, no I/O beyond reading the file it is given"},
	{"capture", nil,
		"reads captures of real-world I/O (fio iologs, blkparse and biosnoop output) from the reader it is given into one model of I/Os: parsing only, it knows no engine, target or run"},
	{"streams", []string{"capture", "units"},
		"characterises a capture (capture's model) into I/O streams after the SNIA RWSW method, its sizes in units: pure, the capture in and a report out"},
	{"metrics", []string{"device", "engine", "pts", "steadystate", "telemetry"},
		"--metrics-textfile: a run's journal records (pts, their verdicts steadystate's) and a workload's intervals (engine) as Prometheus metrics (client_golang), written as one of ptsrun's outputs is (device.CheckOutput); an observer beside the display, it reads no run directory and runs nothing"},
	{"diskstats", []string{"capture", "device", "pts"},
		"`ptsrun capture --diskstats`: /proc/diskstats sampled (prometheus/procfs) into a coarse capture (capture's model and file), written where the output check allows (device.CheckOutput) atomically (pts.WriteFileAtomic)"},
	{"replay", []string{"capture", "engine", "targets", "cpuidle"},
		"`ptsrun replay`: a capture (capture's model) planned onto a target checked and opened through targets (the safety gate), replayed by its engine (engine.Replayer), and its fidelity figured; the run directory is rundir's; --cpu-idle's setting and what was held (cpuidle)"},
	{"rundir", []string{"device", "engine", "targets", "precondition", "fiojobs", "pts", "matrix", "pdfreport", "vdbench", "capture", "streams", "replay", "jsonfmt", "cpuidle"},
		"the run directory: every file of it written, read, checked and rebuilt from run.json and the journal (results by matrix, the report by pdfreport, the records of vdbench files and of ptsrun fio's gate, fiojobs, and of a replay, replay); the plan of a checked run, its purges in precondition's words; a PTS run started, resumed and ended on the targets it opens through targets; the rwsw test's capture read once into run.json (capture, streams); --cpu-idle read and what the targets held of the host's idle CPUs recorded (cpuidle)"},
	{"custom", []string{"device", "engine", "targets", "fiojobs", "pts", "rundir", "vdbench", "importer", "units", "presets", "metrics", "cpuidle"},
		"workloads outside the PTS (the command line's, presets, a vdbench file's runs, a user's fio job files through fiojobs) run on the targets opened through targets and recorded through rundir; a fio group's workload is read as import fio reads it (importer); its intervals written as metrics too (metrics, --metrics-textfile); --cpu-idle read as cpuidle reads it"},
	{"progress", []string{"engine", "pts", "custom", "rundir"},
		"shows a command's progress while it runs: a PTS run's journal records at their place in it (pts), a workload's intervals as the engine completes them (custom's progress hook), where a run stands as rundir reads it from its directory (ptsrun status); it runs nothing"},
	{"clihelp", []string{"engine"},
		"how the command line presents its definitions (urfave/cli): grouped help, usage errors in words (a duration in the engine's reading), completion scripts, the man page; it knows no command"},
	{"cmd/ptsrun", []string{"clihelp", "progress", "device", "engine", "targets", "precondition", "pts", "steadystate", "matrix", "pdfreport", "comparison", "golden", "importer", "rundir", "custom", "confine", "units", "presets", "capture", "streams", "metrics", "replay", "diskstats"},
		"the CLI: flags, options and the calls of the packages that do the work; it opens engines only through targets and run directories only through rundir; nothing imports it (its binary confines the fio it runs: confine.Init)"},
}

// testFixtures may be imported by any package's test files but
// steadystate's, and by no other file but the wiring's.
var testFixtures = map[string]string{
	"engine/sim":        "the simulated drive runs the methodology, every report page and the golden tests without hardware",
	"engine/enginetest": "the engine conformance suite, loop devices and fio servers, and the skips of -short",
	"golden/goldentest": "the golden-file helper the project's own tests use",
	"cpuhog":            "busy processes, to provoke on purpose what a loaded host does by chance",
}

// restrictedUses narrows an allowed import to the identifiers listed, in
// non-test and test files; a package whose files list none may use the
// import in its tests only. golden makes the comparison (comparison's
// model) that the command line hands pdfreport to draw, so it uses nothing
// of pdfreport: its tests draw a comparison and build a run's report to
// read their text. importer's tests build an imported run's report, and
// golden's compare and check imported tables.
var restrictedUses = map[[2]string]struct{ files, tests []string }{
	{"importer", "pdfreport"}:    {tests: []string{"Build", "Options"}},
	{"engine/native", "cpuidle"}: {tests: []string{"Parse", "Take", "QoSPath"}},
	{"golden", "importer"}:       {tests: []string{"ParseTable", "TableIOPS"}},
	{"golden", "pdfreport"}:      {tests: []string{"Build", "Options", "RenderComparison", "ComparisonDoc"}},
}

// forbiddenUses are identifiers of an allowed import that a package's
// non-test files may not use, and why. The command line reads and writes
// run directories only through rundir: run.json, the journal and the
// results are made, read and rebuilt there, in one place.
var forbiddenUses = map[[2]string]struct {
	ids []string
	why string
}{
	{"cmd/ptsrun", "pts"}: {[]string{"RunFile", "JournalFile", "WriteRunInfo", "LoadRunInfo", "OpenJournal", "LoadJournal", "ReadJournal",
		"WriteWorkload", "WriteImported"}, "run directories are rundir's"},
	{"cmd/ptsrun", "matrix"}: {[]string{"Load", "ReadResults"}, "run directories are rundir's"},
}

// noIO is what pdfreport's non-test files may not import: it never runs
// I/O and reads no files; everything it draws arrives in its input, and
// the PDF leaves through the io.Writer it is given. A trailing /... means
// the package and those below it.
var noIO = map[string][]string{
	"pdfreport": {"os/...", "path/filepath", "io/fs", "io/ioutil", "net/...", "syscall", "plugin", "golang.org/x/sys/..."},
}

// exception is a known violation of the rules above: the file, the import,
// and the issue whose refactoring removes it. The test fails on any other
// violation, and on an exception that no longer happens, so that it is
// deleted with the violation.
type exception struct{ file, imports, why string }

// None is left: issue 11 gave pdfreport its job files and per-second
// series in its input.
var exceptions []exception

const module = "github.com/ptsrun/ptsrun"

// goFile is one source file: where it is, whether it is a test file, what
// it imports (project packages relative to the module, others as they
// are) and which identifiers of each imported project package it uses.
type goFile struct {
	Path    string
	Test    bool
	Imports []string
	Uses    map[string][]string
}

// goPackage is a project package: its files, of every build tag, and the
// project packages it depends on, directly or not, tests included.
type goPackage struct {
	Path  string
	Files []goFile
	Deps  []string
}

// TestDependenciesFlowOneWay checks the project's real import graph.
func TestDependenciesFlowOneWay(t *testing.T) {
	pkgs := loadPackages(t)
	require.NotEmpty(t, pkgs)
	for _, v := range checkGraph(pkgs) {
		t.Error(v)
	}
}

// TestDependencyCheckFails shows that each rule fails when broken: the
// real graph with one edge added.
func TestDependencyCheckFails(t *testing.T) {
	pkgs := loadPackages(t)
	require.Empty(t, checkGraph(pkgs), "the real graph must pass first")
	for _, c := range []struct {
		name, pkg, file string
		test            bool
		imports         string
		uses            []string
		want            string
	}{
		{"matrix imports precondition", "matrix", "matrix/tables.go", false, "precondition", nil,
			"matrix/tables.go imports precondition: matrix may import only device, engine, jsonfmt, pts, steadystate"},
		{"pdfreport runs a program", "pdfreport", "pdfreport/render.go", false, "os/exec", nil,
			"pdfreport/render.go imports os/exec: pdfreport runs no I/O"},
		{"pdfreport reads files in a new file", "pdfreport", "pdfreport/page_iops.go", false, "os", nil,
			"pdfreport/page_iops.go imports os: pdfreport runs no I/O"},
		{"golden uses pdfreport internals", "golden", "golden/compare.go", false, "pdfreport", []string{"Page"},
			"golden/compare.go uses pdfreport.Page: golden may use nothing of pdfreport outside its tests"},
		{"golden imports tables outside its tests", "golden", "golden/compare.go", false, "importer", []string{"ParseTable"},
			"golden/compare.go uses importer.ParseTable: golden may use nothing of importer outside its tests"},
		{"data flows back", "pts", "pts/runner.go", false, "matrix", nil,
			"pts/runner.go imports matrix: pts may import only cpuidle, device, engine, precondition, steadystate"},
		{"a sub-package on its own", "engine/sim", "engine/sim/drive.go", false, "engine/fio", nil,
			"engine/sim/drive.go imports engine/fio: engine/sim may import only device, engine"},
		{"a test imports upstream", "pdfreport", "pdfreport/report_test.go", true, "golden", nil,
			"pdfreport/report_test.go imports golden: pdfreport may import only"},
		{"steadystate's tests", "steadystate", "steadystate/steadystate_test.go", true, "golden/goldentest", nil,
			"steadystate/steadystate_test.go imports golden/goldentest: steadystate may import no project package"},
		{"a fixture outside tests", "pts", "pts/runner.go", false, "engine/sim", nil,
			"pts/runner.go imports engine/sim"},
		{"the CLI opens an engine itself", "cmd/ptsrun", "cmd/ptsrun/cmd_run.go", false, "engine/native", nil,
			"cmd/ptsrun/cmd_run.go imports engine/native: cmd/ptsrun may import only capture, clihelp, comparison, confine, custom, device, diskstats, engine, golden, importer, matrix, metrics, pdfreport, precondition, presets, progress, pts, replay, rundir, steadystate, streams, targets"},
		{"the runner opens targets", "pts", "pts/runner.go", false, "targets", nil,
			"pts/runner.go imports targets: pts may import only cpuidle, device, engine, precondition, steadystate"},
		{"the CLI reads a run directory itself", "cmd/ptsrun", "cmd/ptsrun/cmd_report.go", false, "matrix", []string{"Load"},
			"cmd/ptsrun/cmd_report.go uses matrix.Load: run directories are rundir's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			broken := addImport(pkgs, c.pkg, goFile{Path: c.file, Test: c.test, Imports: []string{c.imports},
				Uses: map[string][]string{c.imports: c.uses}})
			assert.Contains(t, strings.Join(checkGraph(broken), "\n"), c.want)
		})
	}

	t.Run("a package without a row", func(t *testing.T) {
		broken := append(slices.Clone(pkgs), goPackage{Path: "target", Files: []goFile{{Path: "target/target.go"}}})
		assert.Contains(t, strings.Join(checkGraph(broken), "\n"), "package target has no row in allowedImports")
	})
	t.Run("steadystate depends on a project package", func(t *testing.T) {
		broken := slices.Clone(pkgs)
		for i, p := range broken {
			if p.Path == "steadystate" {
				broken[i].Deps = append(slices.Clone(p.Deps), "engine")
			}
		}
		assert.Contains(t, strings.Join(checkGraph(broken), "\n"), "steadystate depends on engine")
	})
	t.Run("an exception excuses its violation, and only while it happens", func(t *testing.T) {
		saved := exceptions
		t.Cleanup(func() { exceptions = saved })
		exceptions = append(slices.Clone(saved), exception{"pdfreport/build.go", "os", "issue N: a known violation"})
		broken := addImport(pkgs, "pdfreport", goFile{Path: "pdfreport/build.go", Imports: []string{"os"}})
		assert.Empty(t, checkGraph(broken))
		assert.Contains(t, strings.Join(checkGraph(pkgs), "\n"),
			`exception "pdfreport/build.go imports os" no longer happens (issue N: a known violation): delete it`)
	})
}

// addImport is pkgs with one more file in package pkg.
func addImport(pkgs []goPackage, pkg string, f goFile) []goPackage {
	out := slices.Clone(pkgs)
	for i, p := range out {
		if p.Path == pkg {
			out[i].Files = append(slices.Clone(p.Files), f)
		}
	}
	return out
}

// checkGraph returns every violation of the rules above, in words.
func checkGraph(pkgs []goPackage) []string {
	var out []string
	rows := map[string][]string{}
	for _, r := range allowedImports {
		rows[r.pkg] = r.imports
	}
	known := map[string]bool{}
	for _, p := range pkgs {
		known[p.Path] = true
	}
	for _, r := range allowedImports {
		if !known[r.pkg] {
			out = append(out, fmt.Sprintf("allowedImports has a row for %s, which is no package: update the table", r.pkg))
		}
		if slices.Contains(r.imports, "cmd/ptsrun") {
			out = append(out, fmt.Sprintf("allowedImports lets %s import cmd/ptsrun: nothing imports it", r.pkg))
		}
	}
	used := map[exception]bool{}
	excepted := func(file, imp string) bool {
		for _, e := range exceptions {
			if e.file == file && e.imports == imp {
				used[e] = true
				return true
			}
		}
		return false
	}
	for _, p := range pkgs {
		may, ok := rows[p.Path]
		if !ok {
			out = append(out, fmt.Sprintf("package %s has no row in allowedImports: add one that says what it may import and why", p.Path))
			continue
		}
		for _, d := range p.Deps {
			if p.Path == "steadystate" && d != p.Path {
				out = append(out, fmt.Sprintf("steadystate depends on %s: it imports no project package, tests included", d))
			}
		}
		for _, f := range p.Files {
			for _, imp := range f.Imports {
				if !known[imp] {
					if !f.Test && matchesAny(imp, noIO[p.Path]) && !excepted(f.Path, imp) {
						out = append(out, fmt.Sprintf("%s imports %s: %s runs no I/O and reads no files; what it draws arrives in its input", f.Path, imp, p.Path))
					}
					continue
				}
				switch {
				case imp == p.Path: // an external test of its own package
				case slices.Contains(may, imp):
					out = append(out, restricted(p.Path, f, imp)...)
				case f.Test && testFixtures[imp] != "" && p.Path != "steadystate":
				case excepted(f.Path, imp):
				case len(may) == 0:
					out = append(out, fmt.Sprintf("%s imports %s: %s may import no project package", f.Path, imp, p.Path))
				default:
					out = append(out, fmt.Sprintf("%s imports %s: %s may import only %s (%s)", f.Path, imp, p.Path,
						strings.Join(sorted(may), ", "), rowWhy(p.Path)))
				}
			}
		}
	}
	for _, e := range exceptions {
		if !used[e] {
			out = append(out, fmt.Sprintf("exception %q no longer happens (%s): delete it", e.file+" imports "+e.imports, e.why))
		}
	}
	return out
}

// restricted reports f's uses of imp beyond what restrictedUses allows,
// and those forbiddenUses forbids.
func restricted(pkg string, f goFile, imp string) []string {
	var out []string
	if fb, ok := forbiddenUses[[2]string{pkg, imp}]; ok && !f.Test {
		for _, id := range f.Uses[imp] {
			if slices.Contains(fb.ids, id) {
				out = append(out, fmt.Sprintf("%s uses %s.%s: %s", f.Path, imp, id, fb.why))
			}
		}
	}
	r, ok := restrictedUses[[2]string{pkg, imp}]
	if !ok {
		return out
	}
	allowed := r.files
	if f.Test {
		allowed = r.tests
	}
	for _, id := range f.Uses[imp] {
		switch {
		case slices.Contains(allowed, id):
		case len(allowed) == 0:
			out = append(out, fmt.Sprintf("%s uses %s.%s: %s may use nothing of %s outside its tests", f.Path, imp, id, pkg, imp))
		default:
			out = append(out, fmt.Sprintf("%s uses %s.%s: %s may use only %s.%s", f.Path, imp, id, pkg, imp,
				strings.Join(allowed, ", "+imp+".")))
		}
	}
	return out
}

func rowWhy(pkg string) string {
	for _, r := range allowedImports {
		if r.pkg == pkg {
			return r.why
		}
	}
	return ""
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// matchesAny reports whether imp is one of patterns, where a trailing /...
// matches the package and those below it.
func matchesAny(imp string, patterns []string) bool {
	for _, p := range patterns {
		if base, ok := strings.CutSuffix(p, "/..."); ok && (imp == base || strings.HasPrefix(imp, base+"/")) || imp == p {
			return true
		}
	}
	return false
}

// loadPackages lists the project's packages and their test variants with
// go list -deps -test, and reads every Go file of each, whatever its build
// tags, for its imports and the identifiers it uses of each.
func loadPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-test", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	require.NoError(t, err)
	type listed struct {
		ImportPath, Dir, ForTest                                     string
		GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, IgnoredGoFiles []string
		Imports, TestImports, XTestImports, Deps                     []string
	}
	rel := func(p string) (string, bool) {
		p, _, _ = strings.Cut(p, " ")
		if p == module {
			return ".", true
		}
		if r, ok := strings.CutPrefix(p, module+"/internal/"); ok {
			return r, true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	var bases []listed
	deps := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		path, ok := rel(l.ImportPath)
		if !ok || strings.HasSuffix(path, ".test") {
			continue
		}
		owner := path
		if l.ForTest != "" {
			// A test variant of its own package counts; a dependency
			// recompiled for another package's test does not.
			owner, _ = rel(l.ForTest)
			if path != owner && path != owner+"_test" {
				continue
			}
		} else {
			bases = append(bases, l)
		}
		for _, d := range l.Deps {
			if r, ok := rel(d); ok && r != owner && !slices.Contains(deps[owner], r) {
				deps[owner] = append(deps[owner], r)
			}
		}
	}
	var pkgs []goPackage
	fset := token.NewFileSet()
	for _, l := range bases {
		path, _ := rel(l.ImportPath)
		p := goPackage{Path: path, Deps: deps[path]}
		listedImports := map[string]bool{}
		for _, imp := range slices.Concat(l.Imports, l.TestImports, l.XTestImports) {
			if r, ok := rel(imp); ok {
				listedImports[r] = true
			}
		}
		scanned := map[string]bool{}
		for _, name := range slices.Concat(l.GoFiles, l.CgoFiles, l.TestGoFiles, l.XTestGoFiles, l.IgnoredGoFiles) {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(l.Dir, name), nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			gf := goFile{Path: path + "/" + name, Test: strings.HasSuffix(name, "_test.go"), Uses: map[string][]string{}}
			local := map[string]string{} // local name → project package
			for _, is := range f.Imports {
				imp, err := strconv.Unquote(is.Path.Value)
				require.NoError(t, err)
				if r, ok := rel(imp); ok {
					imp = r
					name := filepath.Base(r)
					if is.Name != nil {
						name = is.Name.Name
					}
					local[name] = r
					scanned[r] = true
				}
				gf.Imports = append(gf.Imports, imp)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] != "" {
						r := local[id.Name]
						if !slices.Contains(gf.Uses[r], sel.Sel.Name) {
							gf.Uses[r] = append(gf.Uses[r], sel.Sel.Name)
						}
					}
				}
				return true
			})
			p.Files = append(p.Files, gf)
		}
		// The files read must give the graph go list sees.
		for imp := range listedImports {
			require.True(t, scanned[imp], "go list says %s imports %s, its files do not", path, imp)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
