package pdfreport

import (
	"fmt"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// What the header columns print of imported results: what their source
// records, and "not recorded" for what it does not (pts.ImportRecord),
// never a default of ptsrun's own runs.

const notRecorded = "not recorded"

// dataPattern is the data pattern of the run's stages: ours is random and
// incompressible (full, or "RND" where the column is narrow); an import's
// is what its source says.
func (b *builder) dataPattern(ours string) string {
	if b.ri.Import != nil {
		if b.ri.Import.DataPattern == "" {
			return notRecorded
		}
		return b.ri.Import.DataPattern
	}
	return ours
}

// pcActiveRange is the active range of the workload-independent
// preconditioning.
func (b *builder) pcActiveRange() string {
	if b.ri.NotRecorded(pts.UnrecordedPrecondition) {
		return notRecorded
	}
	return fmt.Sprintf("%g %%", b.ri.Config.PCActiveRange)
}

// seedLabel is the seed of the random streams.
func (b *builder) seedLabel() string {
	if b.ri.NotRecorded(pts.UnrecordedSeed) {
		return notRecorded
	}
	return fmt.Sprint(b.ri.Config.Seed)
}

// software names the software that measured the results: ptsrun and fio,
// or for imported results the tool that ran them, imported by ptsrun.
func (b *builder) software() string {
	ri := b.ri
	if ri.Imported && ri.Host.Fio != "" {
		return "fio " + ri.Host.Fio + " (imported by ptsrun " + orDash(ri.Version) + ")"
	}
	s := b.ptsrun() + " (" + orDash(ri.Host.Go) + ")"
	if ri.Host.Fio != "" {
		s += ", " + ri.Host.Fio // as fio names itself: "fio-3.33"
	}
	return s
}

// ptsrun names the ptsrun that made the run: its version and, where the
// build stamped it, its commit (a version alone does not say which code ran).
func (b *builder) ptsrun() string {
	s := "ptsrun " + b.ri.Version
	if c := b.ri.Build.Commit; c != "" {
		s += ", commit " + c[:min(12, len(c))]
		if b.ri.Build.Modified {
			s += " (modified)"
		}
	}
	return s
}

// cellRange is a cell's active range in appendix A.
func (b *builder) cellRange(stage string, w engine.Workload) string {
	if b.ri.ActiveRangeNotRecorded(stage) {
		return notRecorded
	}
	return fmt.Sprintf("%g–%g %%", w.RangeStart, w.ActiveRange)
}

// importedCells says, above appendix A, what an imported cell is.
func (b *builder) importedCells() string {
	seed := "its seed is " + notRecorded
	if !b.ri.NotRecorded(pts.UnrecordedSeed) {
		seed = "its jobs set their seeds (randseed)"
	}
	return fmt.Sprintf("Each cell's rounds are the imported results (%s), in the order they were measured: the workload as ptsrun "+
		"reads each reporting group's job options (rw, rwmixread, bs, numjobs, iodepth), its time the group's longest job's. "+
		"The data written is %s; %s.", b.ri.Source, b.dataPattern(notRecorded), seed)
}
