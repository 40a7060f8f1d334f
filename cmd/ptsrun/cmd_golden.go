package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/comparison"
	"github.com/ptsrun/ptsrun/internal/custom"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/golden"
	"github.com/ptsrun/ptsrun/internal/importer"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/rundir"
)

// errRegression: check found the run worse than its baseline (exit 3).
var errRegression = errors.New("regression against the baseline")

func checkCommand() *cli.Command {
	def := golden.DefaultTolerance
	return &cli.Command{
		Name:  "check",
		Usage: "hold a run against a golden baseline: exit 3 when a metric regressed beyond its allowance",
		UsageText: "ptsrun check --golden BASELINE RUN [--tolerance 5%] [--tolerance-iops P] [--tolerance-mbps P] [--tolerance-lat P] " +
			"[--spread 3] [--tolerance-tail 10%] [--tolerance-tail-cell 100%] [--strict-health] [--json]",
		Description: "The rule, with the defaults: " + def.Rule(),
		Flags: slices.Concat(
			clihelp.Group("Baseline",
				&cli.StringFlag{Name: "golden", Usage: "the baseline: a run directory or a results.json", Required: true}),
			clihelp.Group("Tolerances",
				&cli.StringFlag{Name: "tolerance", Value: percent(def.IOPS), Usage: "least allowed move the wrong way of every cell's IOPS, MB/s and average response time"},
				&cli.StringFlag{Name: "tolerance-iops", Usage: "least allowed IOPS drop of a cell", DefaultText: "--tolerance"},
				&cli.StringFlag{Name: "tolerance-mbps", Usage: "least allowed MB/s drop of a cell", DefaultText: "--tolerance"},
				&cli.StringFlag{Name: "tolerance-lat", Usage: "least allowed rise of a cell's average response time", DefaultText: "--tolerance"},
				&cli.Float64Flag{Name: "spread", Value: def.Spread, Usage: "a cell's allowance is at least this many standard errors of the " +
					"difference between two window averages, from the scatter of the baseline's measurement-window rounds, and a stage run on " +
					"another's steady state (ECW's, DIRTH's sweep) at least as many of that state's window plus its trend (0: the tolerances alone)"},
				&cli.StringFlag{Name: "tolerance-tail", Value: percent(def.Tail), Usage: "allowed rise of a test's geometric mean of run ÷ baseline " +
					"of the 99.999 % and of the maximum response times over its cells"},
				&cli.StringFlag{Name: "tolerance-tail-cell", Value: percent(def.TailCell), Usage: "allowed rise of one cell's 99.999 % or maximum response time"},
				&cli.BoolFlag{Name: "strict-health", Usage: "fail on the run's health deviations too: a drive throttling or warning, or media errors grown, in a measurement window"}),
			clihelp.Group("Output",
				&cli.BoolFlag{Name: "json", Usage: "print the result as JSON on stdout"}),
		),
		Action: func(c *cli.Context) error {
			opts, err := checkOptionsFrom(c)
			if err != nil {
				return err
			}
			return runCheck(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func percent(v float64) string { return strconv.FormatFloat(100*v, 'f', -1, 64) + "%" }

// checkOptions are check's options.
type checkOptions struct {
	Golden    string // the baseline: a run directory or a results.json
	Run       string // the run held against it: the same
	Tolerance golden.Tolerance
	JSON      bool
}

// checkOptionsFrom reads check's flags.
func checkOptionsFrom(c *cli.Context) (checkOptions, error) {
	if c.Args().Len() != 1 {
		return checkOptions{}, fmt.Errorf("check needs exactly one run (a directory or results.json) besides --golden")
	}
	f := golden.ToleranceFlags{Set: map[string]bool{}, Values: map[string]string{}, Spread: c.Float64("spread")}
	for _, name := range []string{"tolerance", "tolerance-iops", "tolerance-mbps", "tolerance-lat", "tolerance-tail", "tolerance-tail-cell", "strict-health"} {
		f.Set[name], f.Values[name] = c.IsSet(name), c.String(name)
	}
	tol, err := golden.ParseToleranceFlags(f)
	if err != nil {
		return checkOptions{}, err
	}
	return checkOptions{Golden: c.String("golden"), Run: c.Args().First(), Tolerance: tol, JSON: c.Bool("json")}, nil
}

// runCheck holds a run against its baseline; a regression is errRegression,
// reported by the result it prints.
func runCheck(_ context.Context, opts checkOptions, stdout, _ io.Writer) error {
	base, err := golden.Load(opts.Golden)
	if err != nil {
		return err
	}
	run, err := golden.Load(opts.Run)
	if err != nil {
		return err
	}
	res, err := golden.Check(base, run, opts.Tolerance)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
	} else {
		res.Print(stdout)
	}
	if !res.Pass {
		return reported(errRegression)
	}
	return nil
}

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare runs side by side against the first: a PDF and CSV tables with ratios",
		UsageText: "ptsrun compare REFERENCE RUN... [-o FILE.pdf] [--csv DIR] [--force] [--paper a4|letter] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "the comparison PDF", DefaultText: "compare.pdf in a new directory ./ptsrun-compare-TIME"},
			&cli.StringFlag{Name: "csv", Usage: "directory for the CSV tables", DefaultText: "tables/ beside the PDF without -o; with -o, the PDF's name without .pdf, plus -tables"},
			&cli.BoolFlag{Name: "force", Usage: "replace a PDF or CSV ptsrun did not write (never a device or other special file)"},
			&cli.StringFlag{Name: "paper", Value: "a4", Usage: "paper size: a4 or letter"},
			&cli.BoolFlag{Name: "json", Usage: "print the files written, the runs and the headline ratios as JSON on stdout"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() < 2 {
				return fmt.Errorf("compare needs at least two runs (directories or results.json files); the first is the reference")
			}
			paper, err := paperFlag(c)
			if err != nil {
				return err
			}
			pdf, err := outPath(c, "o")
			if err != nil {
				return err
			}
			csvDir, err := outPath(c, "csv")
			if err != nil {
				return err
			}
			opts := compareOptions{Runs: c.Args().Slice(), PDF: pdf, CSVDir: csvDir, Force: c.Bool("force"), Paper: paper, JSON: c.Bool("json")}
			if opts.PDF == "" {
				// Never the working directory's root: a directory of its own,
				// named for when it was made, as demo's run directory is.
				if opts.NewDir, err = device.AbsPath("ptsrun-compare-" + runClock.now().Format("20060102-150405")); err != nil {
					return err
				}
				opts.PDF = filepath.Join(opts.NewDir, "compare.pdf")
				if opts.CSVDir == "" {
					opts.CSVDir = filepath.Join(opts.NewDir, "tables")
				}
			}
			if opts.CSVDir == "" {
				opts.CSVDir = strings.TrimSuffix(opts.PDF, filepath.Ext(opts.PDF)) + "-tables"
			}
			return runCompare(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// compareOptions are compare's options.
type compareOptions struct {
	Runs   []string // directories or results.json files; the first is the reference
	PDF    string   // -o
	CSVDir string   // --csv
	Force  bool     // replace files ptsrun did not write
	// NewDir, when set, is the directory to make for the outputs (compare
	// without -o); it must not exist, and is removed again when nothing
	// could be written into it.
	NewDir string
	Paper  string // a4 or letter
	JSON   bool
}

// runCompare writes the comparison of opts.Runs as a PDF and CSV tables and
// prints its summary.
func runCompare(_ context.Context, opts compareOptions, stdout, stderr io.Writer) (err error) {
	runs, err := golden.LoadAll(opts.Runs)
	if err != nil {
		return err
	}
	cmp, err := golden.Compare(runs)
	if err != nil {
		return err
	}
	pdf, csvDir := opts.PDF, opts.CSVDir
	if opts.NewDir != "" {
		if err := os.Mkdir(opts.NewDir, 0o755); err != nil {
			return fmt.Errorf("the comparison's directory: %w (name another with -o)", err)
		}
		defer func() {
			if err != nil {
				os.RemoveAll(opts.NewDir) // made above: only what this comparison wrote
			}
		}()
	}
	// Every output is checked before any is written.
	if err := device.CheckOutput(pdf, opts.Force, pdfreport.Produced); err != nil {
		return err
	}
	if err := cmp.WriteCSV(csvDir, opts.Force); err != nil {
		return err
	}
	if err := writeComparison(pdf, opts.Force, cmp.Model(), opts.Paper); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptsrun: wrote %s and %s\n", pdf, csvDir)
	if !opts.JSON {
		cmp.PrintSummary(stdout)
		return nil
	}
	out := struct {
		Type  string `json:"type"`
		Files struct {
			PDF    string   `json:"compare_pdf"`
			CSVDir string   `json:"csv_dir"`
			CSV    []string `json:"csv"`
		} `json:"files"`
		golden.ComparisonSummary
	}{Type: "compare", ComparisonSummary: cmp.Summary()}
	out.Files.PDF, out.Files.CSVDir = pdf, csvDir
	for _, f := range cmp.CSVFiles() {
		out.Files.CSV = append(out.Files.CSV, filepath.Join(csvDir, f))
	}
	return printJSON(stdout, out)
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "turn fio JSON output or a published table into a run directory that report, compare and check accept",
		Subcommands: []*cli.Command{
			{
				Name:      "fio",
				Usage:     "import fio --output-format=json or json+ files (fio 2.x and 3.x, local or client/server)",
				UsageText: "ptsrun import fio FILE... --out DIR [--profile enterprise|client] [--name NAME] [--tested-by NAME] [--lab NAME] [--json]",
				Flags: slices.Concat(
					clihelp.Group("Import",
						&cli.StringFlag{Name: "profile", Value: "enterprise", Usage: "the PTS profile the cells are filed under"},
						&cli.StringFlag{Name: "name", Usage: "the device's name in reports", DefaultText: "fio's filename"}),
					operatorFlags(), importOutputFlags()),
				Action: func(c *cli.Context) error {
					if c.Args().Len() == 0 {
						return fmt.Errorf("import fio needs one or more fio output files")
					}
					op, err := operatorFromFlags(c)
					if err != nil {
						return err
					}
					dir, err := outPath(c, "out")
					if err != nil {
						return err
					}
					opts := importFioOptions{Files: c.Args().Slice(), Profile: c.String("profile"), Name: c.String("name"),
						Into: importOptions{Dir: dir, Operator: op, JSON: c.Bool("json")}}
					return runImportFio(c.Context, opts, c.App.Writer, c.App.ErrWriter)
				},
			},
			{
				Name:      "table",
				Usage:     "import a block size × R/W mix table as published (CSV: bs, then one column per mix)",
				UsageText: "ptsrun import table FILE.csv --out DIR [--metric iops|mbps|lat_ms] [--name NAME] [--tested-by NAME] [--lab NAME] [--json]",
				Flags: slices.Concat(
					clihelp.Group("Import",
						&cli.StringFlag{Name: "metric", Value: "iops", Usage: "what the table holds: iops, mbps or lat_ms (average response time)"},
						&cli.StringFlag{Name: "name", Usage: "the device's name in reports", DefaultText: "the file's name"}),
					operatorFlags(), importOutputFlags()),
				Action: func(c *cli.Context) error {
					if c.Args().Len() != 1 {
						return fmt.Errorf("import table needs exactly one CSV file")
					}
					op, err := operatorFromFlags(c)
					if err != nil {
						return err
					}
					dir, err := outPath(c, "out")
					if err != nil {
						return err
					}
					opts := importTableOptions{File: c.Args().First(), Metric: strings.ToLower(c.String("metric")), Name: c.String("name"),
						Into: importOptions{Dir: dir, Operator: op, JSON: c.Bool("json")}}
					return runImportTable(c.Context, opts, c.App.Writer, c.App.ErrWriter)
				},
			},
		},
	}
}

// importOptions are what every import makes: the run directory, who made
// it, and whether its summary is printed as JSON.
type importOptions struct {
	Dir      string // --out
	Operator pts.Operator
	JSON     bool
}

// importFioOptions are import fio's options.
type importFioOptions struct {
	Files   []string // fio output, JSON or JSON+
	Profile string   // the PTS profile the cells are filed under
	Name    string   // the device's name in reports; fio's filename when empty
	Into    importOptions
}

// runImportFio makes a run directory of fio output files.
func runImportFio(_ context.Context, opts importFioOptions, stdout, stderr io.Writer) error {
	ri, rounds, warnings, err := importer.ImportFio(opts.Files, importer.FioOptions{
		Profile: opts.Profile, Name: opts.Name, Version: version})
	if err != nil {
		return err
	}
	ri.Operator = opts.Into.Operator
	for _, w := range warnings {
		fmt.Fprintf(stderr, "ptsrun: %s\n", w)
	}
	return importInto(opts.Into, warnings, rundir.Imported{Info: ri, Rounds: rounds}, stdout, stderr)
}

// importTableOptions are import table's options.
type importTableOptions struct {
	File   string // CSV: bs, then one column per mix
	Metric string // what the table holds: iops, mbps or lat_ms
	Name   string // the device's name in reports; the file's name when empty
	Into   importOptions
}

// runImportTable makes a run directory of a published table.
func runImportTable(_ context.Context, opts importTableOptions, stdout, stderr io.Writer) error {
	ri, res, err := importer.ImportTable(opts.File, opts.Metric, opts.Name, version)
	if err != nil {
		return err
	}
	ri.Operator = opts.Into.Operator
	return importInto(opts.Into, nil, rundir.Imported{Info: ri, Results: res}, stdout, stderr)
}

// importOutputFlags are the output flags of every import.
func importOutputFlags() []cli.Flag {
	return clihelp.Group("Output",
		&cli.StringFlag{Name: "out", Required: true, Usage: "run directory to create"},
		&cli.BoolFlag{Name: "json", Usage: "print the run directory made, its files and verdicts as JSON on stdout"})
}

// importInto makes the run directory o.Dir of im (rundir.Import) and
// prints its summary; warnings (results left out) go into the --json
// summary too.
func importInto(o importOptions, warnings []string, im rundir.Imported, stdout, stderr io.Writer) error {
	b, err := rundir.Import(o.Dir, im)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptsrun: imported into %s (results.json, tables, %s)\n", o.Dir, filepath.Base(b.PDF))
	sum := b.Summary()
	sum.ImportedFrom, sum.Warnings = b.Info.Source, warnings
	printSummary(stdout, sum, o.JSON)
	return nil
}

// printJSON writes v as one indented JSON document.
func printJSON(w io.Writer, v any) error { return custom.PrintJSON(w, v) }

// writeComparison renders the comparison PDF, atomically, where
// device.CheckOutput allows.
func writeComparison(path string, force bool, c comparison.Comparison, paper string) error {
	return writePDF(path, force, "comparison", func(w io.Writer) error { return pdfreport.RenderComparison(w, c, paper) })
}

// writePDF renders a PDF (what names it in an error) atomically at path,
// where device.CheckOutput allows.
func writePDF(path string, force bool, what string, render func(io.Writer) error) error {
	if err := device.CheckOutput(path, force, pdfreport.Produced); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return pts.WriteFileAtomic(path, buf.Bytes())
}
