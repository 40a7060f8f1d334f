package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/golden"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pdfreport"
	"github.com/ptsrun/ptsrun/pts"
)

// errRegression: check found the run worse than its baseline (exit 3).
var errRegression = errors.New("regression against the baseline")

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "hold a run against a golden baseline: exit 3 when a metric regressed beyond tolerance",
		UsageText: "ptsrun check --golden BASELINE RUN [--tolerance 5%] [--tolerance-iops P] [--tolerance-mbps P] [--tolerance-lat P] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "golden", Usage: "the baseline: a run directory or a results.json", Required: true},
			&cli.StringFlag{Name: "tolerance", Value: "5%", Usage: "allowed change the wrong way, every metric"},
			&cli.StringFlag{Name: "tolerance-iops", Usage: "allowed IOPS drop (default: --tolerance)"},
			&cli.StringFlag{Name: "tolerance-mbps", Usage: "allowed MB/s drop (default: --tolerance)"},
			&cli.StringFlag{Name: "tolerance-lat", Usage: "allowed rise of average, 99.999 % and maximum response time (default: --tolerance)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON on stdout"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("check needs exactly one run (a directory or results.json) besides --golden")
			}
			all, err := golden.ParseTolerance(c.String("tolerance"))
			if err != nil {
				return err
			}
			tol := golden.Tolerance{IOPS: all, MBps: all, Lat: all}
			for _, p := range []struct {
				flag string
				dst  *float64
			}{{"tolerance-iops", &tol.IOPS}, {"tolerance-mbps", &tol.MBps}, {"tolerance-lat", &tol.Lat}} {
				if c.IsSet(p.flag) {
					if *p.dst, err = golden.ParseTolerance(c.String(p.flag)); err != nil {
						return fmt.Errorf("--%s: %w", p.flag, err)
					}
				}
			}
			base, err := golden.Load(c.String("golden"))
			if err != nil {
				return err
			}
			run, err := golden.Load(c.Args().First())
			if err != nil {
				return err
			}
			res, err := golden.Check(base, run, tol)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := printJSON(c.App.Writer, res); err != nil {
					return err
				}
			} else {
				res.Print(c.App.Writer)
			}
			if !res.Pass {
				return reported(errRegression)
			}
			return nil
		},
	}
}

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare runs side by side against the first: a PDF and CSV tables with ratios",
		UsageText: "ptsrun compare REFERENCE RUN... [-o compare.pdf] [--csv DIR] [--paper a4|letter] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Value: "compare.pdf", Usage: "the comparison PDF"},
			&cli.StringFlag{Name: "csv", Usage: "directory for the CSV tables (default: the PDF's name without .pdf, plus -tables)"},
			&cli.StringFlag{Name: "paper", Value: "a4", Usage: "paper size: a4 or letter"},
			&cli.BoolFlag{Name: "json", Usage: "print the files written, the runs and the headline ratios as JSON on stdout"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() < 2 {
				return fmt.Errorf("compare needs at least two runs (directories or results.json files); the first is the reference")
			}
			paper := strings.ToLower(c.String("paper"))
			if paper != "a4" && paper != "letter" {
				return fmt.Errorf("unknown paper size %q: want a4 or letter", c.String("paper"))
			}
			runs, err := golden.LoadAll(c.Args().Slice())
			if err != nil {
				return err
			}
			cmp, err := golden.Compare(runs)
			if err != nil {
				return err
			}
			pdf := c.String("o")
			csvDir := c.String("csv")
			if csvDir == "" {
				csvDir = strings.TrimSuffix(pdf, filepath.Ext(pdf)) + "-tables"
			}
			if err := cmp.WriteCSV(csvDir); err != nil {
				return err
			}
			if err := writeComparison(pdf, cmp.PDF(paper)); err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "ptsrun: wrote %s and %s\n", pdf, csvDir)
			if !c.Bool("json") {
				cmp.PrintSummary(c.App.Writer)
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
			return printJSON(c.App.Writer, out)
		},
	}
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
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "out", Required: true, Usage: "run directory to create"},
					&cli.StringFlag{Name: "profile", Value: "enterprise", Usage: "the PTS profile the cells are filed under"},
					&cli.StringFlag{Name: "name", Usage: "the device's name in reports (default: fio's filename)"},
					jsonImportFlag,
				}, operatorFlags()...),
				Action: func(c *cli.Context) error {
					if c.Args().Len() == 0 {
						return fmt.Errorf("import fio needs one or more fio output files")
					}
					op, err := operatorFromFlags(c)
					if err != nil {
						return err
					}
					ri, rounds, warnings, err := golden.ImportFio(c.Args().Slice(), golden.FioOptions{
						Profile: c.String("profile"), Name: c.String("name"), Version: version})
					if err != nil {
						return err
					}
					ri.Operator = op
					for _, w := range warnings {
						fmt.Fprintf(c.App.ErrWriter, "ptsrun: %s\n", w)
					}
					return importInto(c, warnings, func(dir string) error {
						return pts.WriteImported(dir, ri, rounds)
					})
				},
			},
			{
				Name:      "table",
				Usage:     "import a block size × R/W mix table as published (CSV: bs, then one column per mix)",
				UsageText: "ptsrun import table FILE.csv --out DIR [--metric iops|mbps|lat_ms] [--name NAME] [--tested-by NAME] [--lab NAME] [--json]",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "out", Required: true, Usage: "run directory to create"},
					&cli.StringFlag{Name: "metric", Value: "iops", Usage: "what the table holds: iops, mbps or lat_ms (average response time)"},
					&cli.StringFlag{Name: "name", Usage: "the device's name in reports (default: the file's name)"},
					jsonImportFlag,
				}, operatorFlags()...),
				Action: func(c *cli.Context) error {
					if c.Args().Len() != 1 {
						return fmt.Errorf("import table needs exactly one CSV file")
					}
					op, err := operatorFromFlags(c)
					if err != nil {
						return err
					}
					file := c.Args().First()
					f, err := os.Open(file)
					if err != nil {
						return fmt.Errorf("table %s: %w", file, err)
					}
					defer f.Close()
					tb, err := golden.ParseTable(f, file, strings.ToLower(c.String("metric")))
					if err != nil {
						return err
					}
					name := c.String("name")
					if name == "" {
						name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
					}
					source := fmt.Sprintf("table %s, %s", file, tb.Metric)
					res := tb.Results(source, version)
					ri := golden.TableRunInfo(name, source, version, time.Now().UTC())
					ri.Operator = op
					return importInto(c, nil, func(dir string) error {
						if err := pts.WriteRunInfo(dir, ri); err != nil {
							return err
						}
						return res.Save(dir)
					})
				},
			},
		},
	}
}

var jsonImportFlag = &cli.BoolFlag{Name: "json", Usage: "print the run directory made, its files and verdicts as JSON on stdout"}

// importInto makes the run directory --out, lets write fill it, then
// derives the results, tables and report from it as `report` would. On any
// failure it removes what it made: nothing half-written stays. warnings
// (results left out) go into the --json summary too.
func importInto(c *cli.Context, warnings []string, write func(dir string) error) error {
	dir, stdout, stderr := c.String("out"), c.App.Writer, c.App.ErrWriter
	undo, err := prepareDir(dir)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		undo()
		return err
	}
	if err := write(dir); err != nil {
		return fail(err)
	}
	res, ri, err := matrix.Load(dir)
	if err != nil {
		return fail(err)
	}
	if err := res.Save(dir); err != nil {
		return fail(err)
	}
	out, err := writeReport(dir, "", "a4", ri, res)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "ptsrun: imported into %s (results.json, tables, %s)\n", dir, filepath.Base(out))
	sum := newSummary(res, dir, out)
	sum.ImportedFrom, sum.Warnings = ri.Source, warnings
	printSummary(stderr, stdout, res, sum, c.Bool("json"))
	return nil
}

// printJSON writes v as one indented JSON document.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeComparison renders the comparison PDF, atomically.
func writeComparison(path string, c pdfreport.Comparison) error {
	var buf bytes.Buffer
	if err := c.Render(&buf); err != nil {
		return fmt.Errorf("comparison %s: %w", path, err)
	}
	return pts.WriteFileAtomic(path, buf.Bytes())
}
