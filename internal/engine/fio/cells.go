package fio

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// RunCells runs the cells one after the other. On this host each cell is
// one fio invocation with its own job file, named after the cell (the
// runner names them by stage, round and cell, so that a run directory's
// fio/ folder reads like the plan). The next cell's fio is started while
// the current cell runs, held before its I/O by a lock (exec_prerun=flock)
// that is let go once done has returned: the next cell starts a few
// milliseconds after this one ends instead of after fio's start-up (about
// a fifth of a second). Through fio servers, where every fio invocation
// waits about a second (the server sleeps up to 1 s between a client's
// commands), several cells run in one invocation named name (runBatch);
// traced runs keep one invocation per cell.
func (e *Engine) RunCells(ctx context.Context, name string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	idle := slices.ContainsFunc(cells, func(c engine.Cell) bool { return c.Workload.Idle })
	if len(cells) > 1 && e.hosts[0] != "" && e.opts.Trace == 0 && !idle {
		return e.runBatch(ctx, name, cells, done)
	}
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = e.cellName(c)
	}
	var held *proc // the next cell's fio, started ahead
	defer func() { held.drop() }()
	for i, c := range cells {
		if err := e.validate(c.Workload); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		if c.Workload.Idle {
			// No fio at all: the drive rests in wall time.
			m, err := engine.Rest(ctx, c.Workload)
			if err != nil {
				return err
			}
			if err := done(i, m, time.Since(start)); err != nil {
				return err
			}
			continue
		}
		p := held
		held = nil
		if p != nil {
			p.unhold()
		} else {
			var err error
			if p, err = e.launch(ctx, c.Workload, names[i], false); err != nil {
				return err
			}
		}
		if i+1 < len(cells) && e.hosts[0] == "" && e.flock && !cells[i+1].Workload.Idle {
			if h, err := e.launch(ctx, cells[i+1].Workload, names[i+1], true); err == nil {
				held = h
			}
		}
		m, err := e.finish(ctx, p)
		var crash *crashError
		if errors.As(err, &crash) && ctx.Err() == nil {
			// fio itself crashed, not the device nor the workload: the
			// cell once more, from its start, with a fio of its own.
			if p, err = e.launch(ctx, c.Workload, names[i], false); err != nil {
				return err
			}
			if m, err = e.finish(ctx, p); err != nil {
				return fmt.Errorf("%w (run again after %v)", err, crash)
			}
			m.Relaunched = 1
		}
		if err != nil {
			return err
		}
		if err := done(i, m, time.Since(start)); err != nil {
			return err
		}
	}
	return nil
}

// cellName is the base name of a cell's files.
func (e *Engine) cellName(c engine.Cell) string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("workload-%04d", e.seq.Add(1))
}

// validate checks a workload against every target.
func (e *Engine) validate(w engine.Workload) error {
	if err := checkWorkload(w); err != nil {
		return err
	}
	for _, t := range e.targets {
		if err := w.Validate(t.LogicalBlock); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}

// runBatch runs the cells one after the other in one fio invocation
// through the fio servers, each cell's jobs waiting for the previous
// cell's (stonewall), and calls done for each when all have run. name
// names the files. Its failures are the batch's: *engine.BatchError.
func (e *Engine) runBatch(ctx context.Context, name string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	start := time.Now()
	ms, err := e.batch(ctx, name, cells)
	if err != nil { // fio failed: what it wrote is not the cells' results
		return &engine.BatchError{Err: err}
	}
	wall := time.Since(start) / time.Duration(len(ms))
	for k, m := range ms {
		if err := done(k, m, wall); err != nil {
			return err
		}
	}
	return nil
}

// batch runs runBatch's fio and returns each cell's measurement, and fio's
// own failure when it still wrote results.
func (e *Engine) batch(ctx context.Context, name string, cells []engine.Cell) ([]engine.Measurement, error) {
	for _, c := range cells {
		if err := e.validate(c.Workload); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ws := make([]engine.Workload, len(cells))
	names := make([]string, len(cells))
	for k, c := range cells {
		ws[k], names[k] = c.Workload, e.cellName(c)
	}
	p, err := e.newProc(name)
	if err != nil {
		return nil, err
	}
	var lines []string
	for k, n := range names {
		lines = append(lines, fmt.Sprintf("c%d = %s: %s", k, n, ws[k].String()))
	}
	args, err := e.jobFiles(p, "json+", func(hi int, ts []Target, _ string) string {
		specs := make([]jobSpec, len(ws))
		for k := range ws {
			specs[k] = jobSpec{IOEngine: e.ioeng, LogPrefix: filepath.Join(p.logDir, fmt.Sprintf("c%dh%dt", k, hi)), NoHistLog: !e.histLog(ws[k])}
		}
		return RoundJobFile(ws, ts, specs, fmt.Sprintf("ptsrun round %s, one cell after the other:\n%s", name, strings.Join(lines, "\n")))
	})
	if err != nil {
		return nil, err
	}
	if err := e.start(p, args); err != nil {
		return nil, err
	}
	out, _, runErr, err := e.wait(ctx, p)
	if err != nil {
		return nil, err
	}
	ms := make([]engine.Measurement, len(ws))
	for k, w := range ws {
		prefix := fmt.Sprintf("c%d", k)
		cell := *out
		cell.Jobs = nil
		for _, j := range out.Jobs {
			if rest, ok := strings.CutPrefix(j.Name, prefix); ok && (strings.HasPrefix(rest, "t") || strings.HasPrefix(rest, "r")) {
				j.Name = rest // t<n>, or r<n> for its ramp
				cell.Jobs = append(cell.Jobs, j)
			}
		}
		m, err := e.measurement(&cell, w)
		if err != nil {
			return nil, e.explain(fmt.Errorf("cell %s: %w", names[k], err), out, p)
		}
		e.setSeries(&m, p.logDir, prefix, cell.Jobs, w)
		ms[k] = m
	}
	return ms, runErr
}
