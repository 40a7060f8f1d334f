package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/steadystate"
)

func ssCommand() *cli.Command {
	d := steadystate.Default()
	return &cli.Command{
		Name:      "ss",
		Usage:     "steady-state analysis of a series of per-round values",
		UsageText: "ptsrun ss [--window 5] [--max-range 0.20] [--max-slope 0.10] [--column NAME] [--json] FILE|-",
		Description: "Reads one number per line (blank lines and # comments are skipped), or a CSV file with a\n" +
			"header when --column names the column. Exit 0 when the last window is steady, 3 when not,\n" +
			"1 on bad input.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "window", Value: d.Window, Usage: "rounds in the measurement window"},
			&cli.Float64Flag{Name: "max-range", Value: d.MaxRange, Usage: "allowed max−min as a fraction of the window average"},
			&cli.Float64Flag{Name: "max-slope", Value: d.MaxSlope, Usage: "allowed least-squares excursion as a fraction of the average"},
			&cli.StringFlag{Name: "column", Usage: "read this column of a CSV file with a header"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("ss needs one input: a file, or - for standard input")
			}
			opts := ssOptions{Criteria: steadystate.Criteria{Window: c.Int("window"), MaxRange: c.Float64("max-range"), MaxSlope: c.Float64("max-slope")},
				Input: c.Args().First(), Stdin: c.App.Reader, Column: c.String("column"), JSON: c.Bool("json")}
			return runSS(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// ssOptions are ss's options.
type ssOptions struct {
	Criteria steadystate.Criteria
	Input    string    // a file, or - for Stdin
	Stdin    io.Reader // standard input
	Column   string    // a CSV column; "" reads one number per line
	JSON     bool
}

// runSS judges the series in opts.Input; not steady is errNotSteady,
// reported by the verdict it prints.
func runSS(_ context.Context, opts ssOptions, stdout, _ io.Writer) error {
	crit := opts.Criteria
	if err := crit.Validate(); err != nil {
		return err
	}
	name := opts.Input
	r := opts.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		name = "standard input"
	}
	vals, rounds, err := readSeries(r, opts.Column)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return printSS(stdout, crit, vals, rounds, opts.JSON)
}

// readSeries reads numbers, one per line, or one CSV column. rounds gives the
// input line of each value, for messages.
func readSeries(r io.Reader, column string) ([]float64, []int, error) {
	var vals []float64
	var lines []int
	parse := func(s string, line int) error {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("line %d: %q is not a finite number", line, s)
		}
		vals = append(vals, v)
		lines = append(lines, line)
		return nil
	}
	if column == "" {
		sc := bufio.NewScanner(r)
		n := 0
		for sc.Scan() {
			n++
			t := strings.TrimSpace(sc.Text())
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if err := parse(t, n); err != nil {
				return nil, nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, nil, err
		}
	} else {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = -1
		head, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("empty CSV: no header")
		}
		if err != nil {
			return nil, nil, err
		}
		col := -1
		for i, h := range head {
			if strings.TrimSpace(h) == column {
				col = i
			}
		}
		if col < 0 {
			return nil, nil, fmt.Errorf("line 1: no column %q (columns: %s)", column, strings.Join(head, ", "))
		}
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			line, _ := cr.FieldPos(0)
			if err != nil {
				return nil, nil, err
			}
			if col >= len(rec) {
				return nil, nil, fmt.Errorf("line %d: no value in column %q", line, column)
			}
			if err := parse(rec[col], line); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(vals) == 0 {
		return nil, nil, fmt.Errorf("no values")
	}
	return vals, lines, nil
}

type ssJSON struct {
	Steady            bool      `json:"steady"`
	FirstSteadyRound  *int      `json:"first_steady_round"`
	Window            [2]int    `json:"window"`
	Values            []float64 `json:"values"`
	Avg               float64   `json:"avg"`
	Range             float64   `json:"range"`
	MaxRange          float64   `json:"max_range"`
	Slope             float64   `json:"slope"`
	Intercept         float64   `json:"intercept"`
	SlopeExcursion    float64   `json:"slope_excursion"`
	MaxSlopeExcursion float64   `json:"max_slope_excursion"`
	RangeOK           bool      `json:"range_ok"`
	SlopeOK           bool      `json:"slope_ok"`
	Reason            string    `json:"reason,omitempty"`
	Rounds            int       `json:"rounds"`
}

func printSS(w io.Writer, crit steadystate.Criteria, vals []float64, _ []int, asJSON bool) error {
	first, _ := crit.Scan(vals)
	v := crit.Last(vals)
	out := ssJSON{Steady: v.Steady, Window: [2]int{v.FirstRound, v.LastRound}, Values: v.Values,
		Avg: v.Average, Range: v.Range, MaxRange: v.MaxRange, Slope: v.Slope, Intercept: v.Intercept,
		SlopeExcursion: v.SlopeExcursion, MaxSlopeExcursion: v.MaxSlopeExcursion, RangeOK: v.RangeOK,
		SlopeOK: v.SlopeOK, Reason: v.Reason, Rounds: len(vals)}
	if first > 0 {
		out.FirstSteadyRound = &first
	}
	if asJSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	} else {
		fmt.Fprintf(w, "%5s  %14s  %s\n", "round", "value", "window ending here")
		for r := 1; r <= len(vals); r++ {
			mark := ""
			if r >= crit.Window {
				if crit.CheckAt(vals, r).Steady {
					mark = "steady"
				} else {
					mark = "not steady"
				}
			}
			fmt.Fprintf(w, "%5d  %14.6g  %s\n", r, vals[r-1], mark)
		}
		fmt.Fprintf(w, "\nLast window: rounds %d–%d\n", v.FirstRound, v.LastRound)
		if v.Reason != "" && !v.RangeOK && !v.SlopeOK && v.Average == 0 && v.Range == 0 {
			fmt.Fprintf(w, "  cannot judge: %s\n", v.Reason)
		} else {
			fmt.Fprintf(w, "  average              %.6g\n", v.Average)
			fmt.Fprintf(w, "  range (max−min)      %.6g   allowed %.6g (%g %%)  %s\n", v.Range, v.MaxRange, crit.MaxRange*100, okStr(v.RangeOK))
			fmt.Fprintf(w, "  slope excursion      %.6g   allowed %.6g (%g %%)  %s\n", v.SlopeExcursion, v.MaxSlopeExcursion, crit.MaxSlope*100, okStr(v.SlopeOK))
			fmt.Fprintf(w, "  least squares        y = %.6g·R %+.6g\n", v.Slope, v.Intercept)
		}
		switch {
		case v.Steady:
			fmt.Fprintf(w, "STEADY over rounds %d–%d", v.FirstRound, v.LastRound)
		default:
			fmt.Fprintf(w, "NOT STEADY: %s", v.Reason)
		}
		if first > 0 {
			fmt.Fprintf(w, "; first steady at round %d (window %d–%d)\n", first, first-crit.Window+1, first)
		} else {
			fmt.Fprintln(w, "; no window is steady")
		}
	}
	if !v.Steady {
		return reported(errNotSteady)
	}
	return nil
}

func okStr(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}
