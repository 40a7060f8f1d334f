package native

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
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
// fixedbufs, registerfiles), one after the other at each point on the same
// /dev/shm-backed loop device. It prints a table and, with
// PTSRUN_BENCH_PLOT=FILE.png, draws it (README's engine section shows
// docs/bench/scaling.png, made so). PTSRUN_BENCH_SECONDS is each run's length
// (default 3).
//
//	PTSRUN_BENCH_PLOT=$PWD/docs/bench/scaling.png go test ./internal/engine/native -run '^$' -bench Scaling -benchtime 1x
func BenchmarkScaling(b *testing.B) {
	dev, size := benchDevice(b)
	secs := benchInt("PTSRUN_BENCH_SECONDS", 3)
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
	var table []string
	for i := 0; i < b.N; i++ {
		for _, p := range points {
			w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: p.tc, QD: p.qd, ActiveRange: 100, Duration: d, Seed: 1}
			row := fmt.Sprintf("OIO %4d (TC%d/QD%d):", p.oio, p.tc, p.qd)
			for k, poll := range []time.Duration{0, -1} {
				m, err := open(poll).run(context.Background(), w)
				if err != nil {
					b.Fatal(err)
				}
				busy := (m.CPU.User + m.CPU.Sys) * cpuScale(m)
				iops[k] = append(iops[k], plotter.XY{X: float64(p.oio), Y: m.IOPS()})
				cpus[k] = append(cpus[k], plotter.XY{X: float64(p.oio), Y: busy})
				row += fmt.Sprintf("  %s %.0f IOPS %.2f CPUs;", names[k], m.IOPS(), busy)
			}
			f := fioRun(b, dev, benchCase{w: w, rw: "randread"}, d)
			busy := f.cpuS / d.Seconds()
			iops[2] = append(iops[2], plotter.XY{X: float64(p.oio), Y: f.iops})
			cpus[2] = append(cpus[2], plotter.XY{X: float64(p.oio), Y: busy})
			row += fmt.Sprintf("  fio %.0f IOPS %.2f CPUs", f.iops, busy)
			b.Log(row)
			table = append(table, row)
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
