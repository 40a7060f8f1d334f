package native

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// BenchmarkScaling measures IOPS and CPUs busy against the total
// outstanding I/O (1 … 1024: TC1 up to QD32, then 32-deep threads) of 4 KiB
// random reads, native (polling as chosen, and off) and fio (io_uring,
// fixedbufs, registerfiles, in its best setting at the point: fioBest),
// one after the other at each point on the same
// /dev/shm-backed loop device, PTSRUN_BENCH_PAIRS rounds at each point
// (default 3), the order reversed every other round. It prints each
// engine's median with its min and max and, with PTSRUN_BENCH_PLOT=FILE.png,
// draws the medians (README's engine section shows docs/bench/scaling.png,
// made so). PTSRUN_BENCH_SECONDS is each run's length (default 3).
//
//	PTSRUN_BENCH_PLOT=$PWD/docs/bench/scaling.png go test ./internal/engine/native -run '^$' -bench Scaling -benchtime 1x -v
func BenchmarkScaling(b *testing.B) {
	if _, err := exec.LookPath("fio"); err != nil {
		b.Skip("fio is not installed")
	}
	dev, size := benchDevice(b)
	secs := benchInt("PTSRUN_BENCH_SECONDS", 3)
	rounds := benchInt("PTSRUN_BENCH_PAIRS", 3)
	d := time.Duration(secs) * time.Second
	type point struct{ oio, tc, qd int }
	var points []point
	for oio := 1; oio <= 1024; oio *= 2 {
		tc, qd := 1, oio
		if oio > 32 {
			tc, qd = oio/32, 32
		}
		points = append(points, point{oio, tc, qd})
	}
	open := benchEngines(b, dev, size)
	names := []string{"native", "native, polling off", "fio"}
	iops := make([]plotter.XYs, len(names))
	cpus := make([]plotter.XYs, len(names))
	table := []string{fmt.Sprintf("# 4 KiB random reads, %d s runs, median (min-max) of %d rounds; CPU idle: %s", secs, rounds, benchIdleLabel)}
	for i := 0; i < b.N; i++ {
		for _, p := range points {
			w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: p.tc, QD: p.qd, ActiveRange: 100, Duration: d}
			// fio in its best setting at the point (fioBest), as in
			// BenchmarkVsFio: pinned fio does more at low depths here.
			fc := benchCase{w: w, rw: "randread", metric: "iops"}
			setting, _ := fioBest(b, dev, fc, d)
			fc = fc.with(setting)
			got := make([][2][]float64, len(names)) // per engine: IOPS, CPUs
			for r := range rounds {
				w.Seed = uint64(r + 1)
				order := []int{0, 1, 2}
				if r%2 == 1 {
					order = []int{2, 1, 0}
				}
				for _, k := range order {
					var v, busy float64
					if k == 2 {
						f := fioRun(b, dev, fc, d)
						v, busy = f.iops, f.cpuS/d.Seconds()
					} else {
						m, err := open([]time.Duration{0, -1}[k]).run(context.Background(), w)
						if err != nil {
							b.Fatal(err)
						}
						v, busy = m.IOPS(), (m.CPU.User+m.CPU.Sys)*cpuScale(m)
					}
					got[k][0] = append(got[k][0], v)
					got[k][1] = append(got[k][1], busy)
				}
			}
			row := fmt.Sprintf("OIO %4d (TC%d/QD%d, fio %s):", p.oio, p.tc, p.qd, setting.name)
			for k := range names {
				iops[k] = append(iops[k], plotter.XY{X: float64(p.oio), Y: median(slices.Clone(got[k][0]))})
				cpus[k] = append(cpus[k], plotter.XY{X: float64(p.oio), Y: median(slices.Clone(got[k][1]))})
				row += fmt.Sprintf("  %s %s IOPS, %s CPUs;", names[k], spreadFmt(got[k][0], "%.0f"), spreadFmt(got[k][1], "%.2f"))
			}
			b.Log(row)
			table = append(table, strings.TrimSuffix(row, ";"))
		}
	}
	if out := os.Getenv("PTSRUN_BENCH_PLOT"); out != "" {
		if err := drawScaling(out, names, iops, cpus); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(out, filepath.Ext(out))+".txt", []byte(strings.Join(table, "\n")+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// spreadFmt is xs' median with its min and max in the format f:
// "231044 (220113-240871)"; xs is left as it was.
func spreadFmt(xs []float64, f string) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf(f+" ("+f+"-"+f+")", median(slices.Clone(xs)), slices.Min(xs), slices.Max(xs))
}

// drawScaling draws IOPS over CPUs busy against the outstanding I/O.
func drawScaling(path string, names []string, iops, cpus []plotter.XYs) error {
	mk := func(title, y string, series []plotter.XYs) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "total outstanding I/O (TC × QD)", y
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Legend.Top, p.Legend.Left = true, true
		for i, s := range series {
			l, pts, err := plotter.NewLinePoints(s)
			if err != nil {
				return nil, err
			}
			l.Color, pts.Color = plotColors[i], plotColors[i]
			pts.Shape = draw.CircleGlyph{}
			p.Add(l, pts)
			p.Legend.Add(names[i], l, pts)
		}
		return p, nil
	}
	top, err := mk("RND 4 KiB read on a /dev/shm loop device", "IOPS", iops)
	if err != nil {
		return err
	}
	bottom, err := mk("", "CPUs busy", cpus)
	if err != nil {
		return err
	}
	img := vgimg.New(7*vg.Inch, 7*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var plotColors = []color.Color{color.RGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 255}, color.RGBA{R: 0x6a, G: 0xa8, B: 0xe8, A: 255}, color.RGBA{R: 0xd0, G: 0x60, B: 0x20, A: 255}}
