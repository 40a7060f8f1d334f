package sim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// The state directory of one drive: a snapshot and the log of operations
// given since (and before) it. Every operation is appended and synced before
// it runs; a snapshot is taken every snapshotEvery operations and on Close.
const (
	snapFile      = "drive.snap"
	logFile       = "drive.oplog"
	snapMagic     = "PTSRUN-SIM-DRIVE-3\n" // 3: blocks keep when they were closed (cost-benefit collection)
	snapshotEvery = 64
)

// op is one logged operation.
type op struct {
	Seq      uint64           `json:"seq"`
	Op       string           `json:"op"` // run, purge, wce, trim
	Workload *engine.Workload `json:"w,omitempty"`
	Salt     uint64           `json:"salt,omitempty"`
	Enabled  bool             `json:"enabled,omitempty"`
}

type store struct {
	dir       string
	log       *os.File
	seq       uint64
	sinceSnap int
}

// header is the fixed part of a snapshot.
type header struct {
	Seq                     uint64
	Clock                   int64
	WCE                     bool
	GCRel, GCHost, GCErase  float64
	RandCarry               float64
	StepUnits, IdleCredit   float64
	HostWritten, HostRead   int64
	UnitBytes               int64
	UserUnits, UPB, NBlocks int32
	Reserve                 int64
	FreeH, FreeN            int64
	HostBlock, HostNext     int32
	GCBlock, GCNext         int32
	HostUnits, Relocated    int64
	Erased                  int64
}

func (d *Drive) writeSnapshot(w io.Writer, seq uint64, serial string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(snapMagic + d.m.Name + "\n" + serial + "\n"); err != nil {
		return err
	}
	f := d.f
	h := header{Seq: seq, Clock: int64(d.clock), WCE: d.wce, GCRel: d.gcRel, GCHost: d.gcHost,
		GCErase: d.gcErase, RandCarry: d.randCarry, StepUnits: d.stepUnits, IdleCredit: d.idleCredit, HostWritten: d.hostWritten, HostRead: d.hostRead,
		UnitBytes: d.unitBytes, UserUnits: f.userUnits, UPB: f.unitsPerBlock, NBlocks: f.nBlocks,
		Reserve: int64(f.reserve), FreeH: int64(f.freeH), FreeN: int64(f.freeN),
		HostBlock: f.host.block, HostNext: f.host.next, GCBlock: f.gc.block, GCNext: f.gc.next,
		HostUnits: f.hostUnits, Relocated: f.relocated, Erased: f.erased}
	// The thermal state last: a snapshot older than it ends before, and
	// its drive starts at ambient.
	for _, v := range []any{h, f.l2p, f.gran, f.p2l, f.valid, f.state, f.free, f.closedAt, int64(len(f.closed)), f.closed, d.th} {
		if err := binary.Write(bw, binary.LittleEndian, v); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func readSnapshot(r io.Reader, m Model) (*Drive, uint64, string, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, err := br.ReadString('\n')
	switch {
	case err == nil && magic != snapMagic && strings.HasPrefix(magic, "PTSRUN-SIM-DRIVE-"):
		return nil, 0, "", fmt.Errorf("a simulated-drive snapshot of another ptsrun version (%s): this one cannot continue it", strings.TrimSpace(magic))
	case err != nil || magic != snapMagic:
		return nil, 0, "", errors.New("not a simulated-drive snapshot")
	}
	name, err1 := br.ReadString('\n')
	serial, err2 := br.ReadString('\n')
	if err1 != nil || err2 != nil {
		return nil, 0, "", errors.New("truncated snapshot header")
	}
	name, serial = name[:len(name)-1], serial[:len(serial)-1]
	if name != m.Name {
		return nil, 0, "", fmt.Errorf("it holds a sim:%s drive, not sim:%s", name, m.Name)
	}
	var h header
	if err := binary.Read(br, binary.LittleEndian, &h); err != nil {
		return nil, 0, "", fmt.Errorf("snapshot header: %w", err)
	}
	d := newDrive(m)
	f := d.f
	if h.UnitBytes != d.unitBytes || h.UserUnits != f.userUnits || h.UPB != f.unitsPerBlock || h.NBlocks != f.nBlocks {
		return nil, 0, "", errors.New("snapshot geometry does not match the model (made by another ptsrun version?)")
	}
	var nClosed int64
	for _, v := range []any{f.l2p, f.gran, f.p2l, f.valid, f.state, f.free, f.closedAt, &nClosed} {
		if err := binary.Read(br, binary.LittleEndian, v); err != nil {
			return nil, 0, "", fmt.Errorf("snapshot body: %w", err)
		}
	}
	if nClosed < 0 || nClosed > int64(f.nBlocks) {
		return nil, 0, "", errors.New("snapshot body: corrupt block list")
	}
	f.closed = f.closed[:nClosed]
	if err := binary.Read(br, binary.LittleEndian, f.closed); err != nil {
		return nil, 0, "", fmt.Errorf("snapshot body: %w", err)
	}
	f.countGran()
	switch err := binary.Read(br, binary.LittleEndian, &d.th); {
	case errors.Is(err, io.EOF):
		d.th = newThermalState(m.Thermal)
	case err != nil:
		return nil, 0, "", fmt.Errorf("snapshot thermal state: %w", err)
	}
	d.clock = durationNs(h.Clock)
	d.wce, d.gcRel, d.gcHost, d.gcErase, d.randCarry = h.WCE, h.GCRel, h.GCHost, h.GCErase, h.RandCarry
	d.stepUnits, d.idleCredit = h.StepUnits, h.IdleCredit
	d.hostWritten, d.hostRead = h.HostWritten, h.HostRead
	f.reserve, f.freeH, f.freeN = int(h.Reserve), int(h.FreeH), int(h.FreeN)
	f.host, f.gc = frontier{h.HostBlock, h.HostNext}, frontier{h.GCBlock, h.GCNext}
	f.hostUnits, f.relocated, f.erased = h.HostUnits, h.Relocated, h.Erased
	return d, h.Seq, serial, nil
}

// openStore loads the drive kept in dir, replaying logged operations, or
// makes a fresh one when dir holds none.
func openStore(dir string, m Model, serial string) (*Drive, *store, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, "", fmt.Errorf("simulated drive state %s: %w", dir, err)
	}
	d := newDrive(m)
	var seq uint64
	if fh, err := os.Open(filepath.Join(dir, snapFile)); err == nil {
		ld, s, ser, err := readSnapshot(fh, m)
		fh.Close()
		if err != nil {
			return nil, nil, "", fmt.Errorf("simulated drive state %s: %w", filepath.Join(dir, snapFile), err)
		}
		d, seq, serial = ld, s, ser
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, "", fmt.Errorf("simulated drive state %s: %w", dir, err)
	}
	logPath := filepath.Join(dir, logFile)
	if data, err := os.ReadFile(logPath); err == nil {
		lines := bytes.Split(data, []byte("\n"))
		for i, line := range lines {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var o op
			if err := json.Unmarshal(line, &o); err != nil {
				if i == len(lines)-1 {
					break // cut short by a kill before the operation ran
				}
				return nil, nil, "", fmt.Errorf("simulated drive log %s line %d: %w", logPath, i+1, err)
			}
			if o.Seq <= seq {
				continue
			}
			d.apply(o)
			seq = o.Seq
		}
	}
	lf, err := device.OpenRunFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, "", fmt.Errorf("simulated drive log %s: %w", logPath, err)
	}
	return d, &store{dir: dir, log: lf, seq: seq}, serial, nil
}

// apply runs one operation on the drive.
func (d *Drive) apply(o op) engine.Measurement {
	switch o.Op {
	case "run":
		return d.run(*o.Workload, o.Salt)
	case "purge":
		d.purge()
	case "wce":
		d.wce = o.Enabled
	}
	return engine.Measurement{}
}

// record logs an operation durably before it runs.
func (s *store) record(o *op) error {
	s.seq++
	o.Seq = s.seq
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if _, err := s.log.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("simulated drive log %s: %w", s.log.Name(), err)
	}
	return s.log.Sync()
}

// snapshot writes the drive's state atomically.
func (s *store) snapshot(d *Drive, serial string) error {
	tmp := filepath.Join(s.dir, snapFile+".tmp")
	fh, err := device.OpenRunFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("simulated drive snapshot: %w", err)
	}
	if err := d.writeSnapshot(fh, s.seq, serial); err != nil {
		fh.Close()
		return fmt.Errorf("simulated drive snapshot %s: %w", tmp, err)
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, snapFile)); err != nil {
		return err
	}
	s.sinceSnap = 0
	return syncDir(s.dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
