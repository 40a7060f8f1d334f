package precondition

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
)

func tool(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tools", name))
	require.NoError(t, err)
	return string(b)
}

// fakeExec answers commands with captured tool output. A command given
// several answers returns them in turn (the last one repeats); a command
// with no answer fails, as a missing tool would.
type fakeExec struct {
	answers map[string][]Command
	calls   []string
}

func (f *fakeExec) on(cmd string, out string, exit int) *fakeExec {
	if f.answers == nil {
		f.answers = map[string][]Command{}
	}
	f.answers[cmd] = append(f.answers[cmd], Command{Output: out, Exit: exit})
	return f
}

func (f *fakeExec) Run(_ context.Context, args ...string) Command {
	key := strings.Join(args, " ")
	f.calls = append(f.calls, key)
	a := f.answers[key]
	if len(a) == 0 {
		return Command{Args: args, Output: "unexpected command " + key, Exit: 127}
	}
	c := a[0]
	if len(a) > 1 {
		f.answers[key] = a[1:]
	}
	c.Args = args
	return c
}

func TestParsers(t *testing.T) {
	c, err := ParseNVMeIDCtrl(tool(t, "nvme-id-ctrl.json"))
	require.NoError(t, err)
	assert.Equal(t, "SAMSUNG MZQL23T8HCLS-00A07", c.Model)
	assert.Equal(t, "S64HNE0T123456", c.Serial)
	assert.True(t, c.SanitizeBlock())
	assert.True(t, c.SanitizeCrypto())
	assert.True(t, c.Format())
	assert.True(t, c.FormatCrypto())
	assert.False(t, c.WriteCache(), "vwc 6: no volatile cache (bit 0 clear)")
	cl, err := ParseNVMeIDCtrl(tool(t, "nvme-id-ctrl-client.json"))
	require.NoError(t, err)
	assert.False(t, cl.SanitizeBlock())
	assert.True(t, cl.Format())
	assert.False(t, cl.FormatCrypto())
	assert.True(t, cl.WriteCache())
	_, err = ParseNVMeIDCtrl("NVMe status: INVALID_OPCODE")
	assert.Error(t, err)

	for name, want := range map[string]SanitizeState{
		"nvme-sanitize-log-running.json": {Status: SanitizeInProgress, Progress: 16384},
		"nvme-sanitize-log-done.json":    {Status: SanitizeDone, Progress: 65535, GlobalErased: true},
		"nvme-sanitize-log-failed.txt":   {Status: SanitizeFailed, Progress: 65535},
	} {
		st, err := ParseSanitizeLog(tool(t, name))
		require.NoError(t, err, name)
		assert.Equal(t, want, st, name)
	}
	_, err = ParseSanitizeLog("garbage")
	assert.Error(t, err)

	fr, err := ParseHdparmIdentify(tool(t, "hdparm-I-frozen.txt"))
	require.NoError(t, err)
	assert.Equal(t, ATASecurity{Supported: true, Frozen: true, Enhanced: true, SanitizeBlock: true, SanitizeCrypto: true, EraseMinutes: 2}, fr)
	rd, err := ParseHdparmIdentify(tool(t, "hdparm-I-ready.txt"))
	require.NoError(t, err)
	assert.False(t, rd.Frozen)
	assert.False(t, rd.SanitizeBlock)
	pw, _ := ParseHdparmIdentify(tool(t, "hdparm-I-password-set.txt"))
	assert.True(t, pw.Enabled)

	run, pct, bad, err := ATASanitizeStatus(tool(t, "hdparm-sanitize-running.txt"))
	require.NoError(t, err)
	assert.True(t, run)
	assert.Equal(t, 12, pct)
	assert.False(t, bad)
	run, _, bad, err = ATASanitizeStatus(tool(t, "hdparm-sanitize-idle.txt"))
	require.NoError(t, err)
	assert.False(t, run)
	assert.False(t, bad)

	p, ok := SCSIProgress(tool(t, "sg_requests-progress.txt"))
	assert.True(t, ok)
	assert.InDelta(t, 45.21, p, 1e-9)
	_, ok = SCSIProgress(tool(t, "sg_requests-done.txt"))
	assert.False(t, ok)

	for _, tc := range []struct {
		tool, file string
		want       bool
	}{{"nvme", "nvme-get-feature-6-on.txt", true}, {"nvme", "nvme-get-feature-6-odd.txt", false},
		{"hdparm", "hdparm-W-on.txt", true}, {"sdparm", "sdparm-WCE-off.txt", false}} {
		on, err := ParseWriteCache(tc.tool, tool(t, tc.file))
		if tc.file == "nvme-get-feature-6-odd.txt" {
			assert.Error(t, err, "a value without 0x is not read as something it may not be")
			continue
		}
		require.NoError(t, err, tc.file)
		assert.Equal(t, tc.want, on, tc.file)
	}
}

var nvmeDev = Dev{Path: "/dev/nvme0n1", Kind: device.KindBlock, Interface: "NVMe", Controller: "/dev/nvme0", Capacity: 1 << 30, LogicalBlock: 512}

// The method's commands, in order, against captured output. No real device
// is touched: the command runner is the fake and the read-back check is off.
func commands(t *testing.T, method string, d Dev, x *fakeExec) ([]string, error) {
	t.Helper()
	p := &Purger{Method: method, Devs: []Dev{d}, Exec: x, Poll: time.Millisecond}
	rec := &recorder{x: x}
	ch, err := p.resolve(context.Background(), rec)
	if err != nil {
		return x.calls, err
	}
	_, err = ch.method.run(context.Background(), p, d, rec)
	return x.calls, err
}

func TestNVMeSanitizeCommands(t *testing.T) {
	x := (&fakeExec{}).
		on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl.json"), 0).
		on("nvme sanitize /dev/nvme0 --sanact=2", "", 0).
		on("nvme sanitize-log /dev/nvme0 -o json", tool(t, "nvme-sanitize-log-running.json"), 0).
		on("nvme sanitize-log /dev/nvme0 -o json", tool(t, "nvme-sanitize-log-running.json"), 0).
		on("nvme sanitize-log /dev/nvme0 -o json", tool(t, "nvme-sanitize-log-done.json"), 0)
	calls, err := commands(t, NVMeSanitize, nvmeDev, x)
	require.NoError(t, err)
	assert.Equal(t, []string{"nvme id-ctrl /dev/nvme0 -o json", "nvme sanitize /dev/nvme0 --sanact=2",
		"nvme sanitize-log /dev/nvme0 -o json", "nvme sanitize-log /dev/nvme0 -o json", "nvme sanitize-log /dev/nvme0 -o json"}, calls)

	x = (&fakeExec{}).
		on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl.json"), 0).
		on("nvme sanitize /dev/nvme0 --sanact=4", "", 0).
		on("nvme sanitize-log /dev/nvme0 -o json", tool(t, "nvme-sanitize-log-failed.txt"), 0)
	_, err = commands(t, NVMeSanitizeCrypto, nvmeDev, x)
	assert.ErrorContains(t, err, "the sanitize operation failed")

	x = (&fakeExec{}).on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl-client.json"), 0)
	_, err = commands(t, NVMeSanitize, nvmeDev, x)
	assert.ErrorContains(t, err, "does not support sanitize block erase")
}

func TestNVMeFormatAndAuto(t *testing.T) {
	x := (&fakeExec{}).
		on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl-client.json"), 0).
		on("nvme format /dev/nvme0n1 --ses=1 --force", "Success formatting namespace:1\n", 0)
	p := &Purger{Method: Auto, Devs: []Dev{nvmeDev}, Exec: x}
	rec := &recorder{x: x}
	ch, err := p.resolve(context.Background(), rec)
	require.NoError(t, err)
	assert.Equal(t, NVMeFormat, ch.Method, "no sanitize on this drive: auto falls back to Format NVM")
	assert.Empty(t, ch.note, "a compliant method needs no excuse")
	_, err = ch.method.run(context.Background(), p, nvmeDev, rec)
	require.NoError(t, err)
	assert.Contains(t, x.calls, "nvme format /dev/nvme0n1 --ses=1 --force")
	assert.True(t, ch.method.compliant)
}

func TestATA(t *testing.T) {
	sda := Dev{Path: "/dev/sda", Kind: device.KindBlock, Interface: "SATA", Capacity: 1 << 30}
	x := (&fakeExec{}).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-frozen.txt"), 0).
		on("hdparm --yes-i-know-what-i-am-doing --sanitize-block-erase /dev/sda", "", 0).
		on("hdparm --sanitize-status /dev/sda", tool(t, "hdparm-sanitize-running.txt"), 0).
		on("hdparm --sanitize-status /dev/sda", tool(t, "hdparm-sanitize-idle.txt"), 0)
	calls, err := commands(t, ATASanitize, sda, x)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(strings.Join(calls, "\n"), "--sanitize-status"))

	// Secure erase refuses a frozen drive, naming the way out.
	x = (&fakeExec{}).on("hdparm -I /dev/sda", tool(t, "hdparm-I-frozen.txt"), 0)
	_, err = commands(t, ATASecureErase, sda, x)
	assert.ErrorContains(t, err, "frozen")
	assert.ErrorContains(t, err, "suspend and resume")

	x = (&fakeExec{}).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-ready.txt"), 0).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-ready.txt"), 0).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-ready.txt"), 0).
		on("hdparm --user-master u --security-set-pass ptsrun /dev/sda", "security_password: \"ptsrun\"\n", 0).
		on("hdparm --user-master u --security-erase-enhanced ptsrun /dev/sda", "", 0)
	calls, err = commands(t, ATASecureErase, sda, x)
	require.NoError(t, err)
	assert.Equal(t, []string{"hdparm -I /dev/sda", "hdparm -I /dev/sda",
		"hdparm --user-master u --security-set-pass ptsrun /dev/sda",
		"hdparm --user-master u --security-erase-enhanced ptsrun /dev/sda", "hdparm -I /dev/sda"}, calls)

	// The password survives the erase: it is removed, and the run goes on.
	x = (&fakeExec{}).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-ready.txt"), 0).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-ready.txt"), 0).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-password-set.txt"), 0).
		on("hdparm --user-master u --security-set-pass ptsrun /dev/sda", "", 0).
		on("hdparm --user-master u --security-erase-enhanced ptsrun /dev/sda", "", 0).
		on("hdparm --user-master u --security-disable ptsrun /dev/sda", "", 0)
	calls, err = commands(t, ATASecureErase, sda, x)
	require.NoError(t, err)
	assert.Equal(t, "hdparm --user-master u --security-disable ptsrun /dev/sda", calls[len(calls)-1])

	// A failed erase does not leave ptsrun's password on the drive.
	x = (&fakeExec{}).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-ready.txt"), 0).
		on("hdparm --user-master u --security-set-pass ptsrun /dev/sda", "", 0).
		on("hdparm --user-master u --security-erase-enhanced ptsrun /dev/sda", "SG_IO: bad/missing sense data", 5).
		on("hdparm --user-master u --security-disable ptsrun /dev/sda", "", 0)
	calls, err = commands(t, ATASecureErase, sda, x)
	assert.ErrorContains(t, err, "exited 5")
	assert.Contains(t, calls, "hdparm --user-master u --security-disable ptsrun /dev/sda")
}

func TestSCSI(t *testing.T) {
	sdb := Dev{Path: "/dev/sdb", Kind: device.KindBlock, Interface: "SAS", Capacity: 1 << 30}
	x := (&fakeExec{}).
		on("sg_opcodes --opcode=0x48 /dev/sdb", tool(t, "sg_opcodes-sanitize.txt"), 0).
		on("sg_sanitize --block --quick --early /dev/sdb", "", 0).
		on("sg_requests --progress /dev/sdb", tool(t, "sg_requests-progress.txt"), 0).
		on("sg_requests --progress /dev/sdb", tool(t, "sg_requests-done.txt"), 0)
	calls, err := commands(t, SCSISanitize, sdb, x)
	require.NoError(t, err)
	assert.Equal(t, []string{"sg_opcodes --opcode=0x48 /dev/sdb", "sg_sanitize --block --quick --early /dev/sdb",
		"sg_requests --progress /dev/sdb", "sg_requests --progress /dev/sdb"}, calls)
	x = (&fakeExec{}).
		on("sg_format --format --early /dev/sdb", "", 0).
		on("sg_requests --progress /dev/sdb", tool(t, "sg_requests-done.txt"), 0)
	_, err = commands(t, SCSIFormat, sdb, x)
	require.NoError(t, err)
	_, err = commands(t, NVMeFormat, sdb, &fakeExec{})
	assert.ErrorContains(t, err, "does not apply to /dev/sdb (SAS)")
}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		req, kind, want, err string
	}{
		{"auto", device.KindSim, SimFormat, ""},
		{"", device.KindSim, SimFormat, ""},
		{"none", device.KindSim, None, ""},
		{"auto", device.KindBlock, Auto, ""},
		{"nvme-sanitize", device.KindBlock, NVMeSanitize, ""},
		{"discard", device.KindFile, Discard, ""},
		{"nvme-format", device.KindFile, "", "does not apply to a file"},
		{"nvme-format", device.KindSim, "", "does not apply to a simulated drive"},
		{"sim-format", device.KindBlock, "", "applies only to simulated drives"},
		{"auto", device.KindRemote, Auto, ""},
		{"discard", device.KindRemote, Discard, ""},
		{"zero-fill", device.KindRemote, ZeroFill, ""},
		{"none", device.KindRemote, None, ""},
		{"nvme-sanitize", device.KindRemote, "", "purge method nvme-sanitize cannot reach targets on fio servers"},
		{"ata-secure-erase", device.KindRemote, "", "use --purge auto, discard or zero-fill, or purge them on their hosts and run with --purge none"},
		{"sim-format", device.KindRemote, "", "applies only to simulated drives"},
		{"trim", device.KindBlock, "", `unknown purge method "trim"`},
	} {
		got, err := Choose(tc.req, tc.kind)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.req)
			continue
		}
		require.NoError(t, err, tc.req)
		assert.Equal(t, tc.want, got)
	}
}

func TestSimPurge(t *testing.T) {
	m, _ := sim.Lookup("client")
	e, err := sim.Open([]sim.Target{{Name: "sim", Model: m}})
	require.NoError(t, err)
	res, err := (&Purger{Method: SimFormat, Engine: e}).Purge(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Compliant)
	assert.Positive(t, res.Duration)
	res, err = (&Purger{Method: None}).Purge(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Skipped)
	assert.False(t, res.Compliant)
}

// fill writes random data over the whole device and returns it.
func fill(t *testing.T, path string, size int64) []byte {
	data := make([]byte, size)
	_, _ = rand.Read(data)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	f.Close()
	return data
}

// Discard and zero-fill for real: a pattern is written, the device purged,
// and every byte read back.
func TestDiscardAndZeroFillOnLoopDevice(t *testing.T) {
	for _, method := range []string{Discard, ZeroFill, Auto} {
		t.Run(method, func(t *testing.T) {
			dev := enginetest.LoopDevice(t, 32<<20, "")
			tg, err := device.Live.Inspect(device.Spec{Raw: dev, Kind: device.KindBlock, Path: dev})
			require.NoError(t, err)
			d := DevOf(tg)
			require.True(t, d.Discard, "loop devices take discards")
			fill(t, dev, 32<<20)
			var lines []string
			p := &Purger{Method: method, Devs: []Dev{d}, Progress: func(s string) { lines = append(lines, s) }}
			res, err := p.Purge(context.Background())
			require.NoError(t, err)
			assert.False(t, res.Compliant, "%s is not a PTS purge", res.Method)
			if method == Auto {
				assert.Equal(t, Discard, res.Method, "auto on a loop device: no PTS purge, discard is the best substitute")
				assert.Contains(t, res.Note, "auto found no PTS purge")
			}
			assert.Contains(t, res.Note, "not a PTS purge")
			assert.Contains(t, res.Verified, "18 sampled blocks read back as zeros")
			require.NotEmpty(t, res.Commands)
			assert.NotEmpty(t, lines, "progress is reported")
			back, err := os.ReadFile(dev)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(back, make([]byte, 32<<20)), "every byte reads back as zero")
		})
	}
}

func TestDiscardFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.img")
	fill(t, p, 8<<20)
	res, err := (&Purger{Method: Discard, Devs: []Dev{{Path: p, Kind: device.KindFile, Interface: "file", Capacity: 8 << 20, Discard: true}}}).Purge(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Discard, res.Method)
	back, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Len(t, back, 8<<20, "the file keeps its size")
	assert.True(t, bytes.Equal(back, make([]byte, 8<<20)))
}

// stand is a file standing in for a device's content after a purge.
func stand(t *testing.T, fillWith byte) string {
	p := filepath.Join(t.TempDir(), "dev.img")
	if fillWith == 'r' {
		fill(t, p, 1<<20)
		return p
	}
	require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte{fillWith}, 1<<20), 0o644))
	return p
}

// Completion is what the device reports; blocks are read back only where the
// device promises what erased blocks read as, and then against that pattern.
func TestPurgeVerification(t *testing.T) {
	sanitized := func(x *fakeExec, dlfeat string) *fakeExec {
		return x.on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl.json"), 0).
			on("nvme sanitize /dev/nvme0 --sanact=2", "", 0).
			on("nvme sanitize-log /dev/nvme0 -o json", tool(t, "nvme-sanitize-log-done.json"), 0).
			on("nvme id-ns PATH -o json", tool(t, "nvme-id-ns-dlfeat"+dlfeat+".json"), 0)
	}
	for _, tc := range []struct {
		name    string
		method  string
		content byte // 'r': random
		exec    func(path string) *fakeExec
		err     string
		says    []string
	}{
		{"sanitize, DLFEAT 2, reads 0xFF: a good purge", NVMeSanitize, 0xff,
			func(string) *fakeExec { return sanitized(&fakeExec{}, "2") }, "",
			[]string{"completed (SSTAT 1, global data erased)", "18 sampled blocks read back as bytes 0xff (DLFEAT 2"}},
		{"sanitize, DLFEAT 1, reads zeros", NVMeSanitize, 0,
			func(string) *fakeExec { return sanitized(&fakeExec{}, "1") }, "", []string{"read back as zeros"}},
		{"sanitize, DLFEAT 1, old data: caught", NVMeSanitize, 'r',
			func(string) *fakeExec { return sanitized(&fakeExec{}, "1") }, "18 of 18 sampled blocks read back otherwise: the purge did not happen", nil},
		{"sanitize, DLFEAT 0: the log decides, nothing read back", NVMeSanitize, 'r',
			func(string) *fakeExec { return sanitized(&fakeExec{}, "0") }, "",
			[]string{"not read back: DLFEAT 0: the drive does not say what deallocated blocks read as"}},
		{"format leaves a vendor pattern: a good purge", NVMeFormat, 0x5a,
			func(p string) *fakeExec {
				return (&fakeExec{}).on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl.json"), 0).
					on("nvme format "+p+" --ses=1 --namespace-id=1 --force", "Success formatting namespace:1\n", 0)
			}, "", []string{"Format NVM completed successfully", "not read back: after Format NVM the user data is indeterminate"}},
		{"crypto sanitize of a drive that read zeros before and after", NVMeSanitizeCrypto, 0,
			func(string) *fakeExec {
				return (&fakeExec{}).on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl.json"), 0).
					on("nvme sanitize /dev/nvme0 --sanact=4", "", 0).
					on("nvme sanitize-log /dev/nvme0 -o json", tool(t, "nvme-sanitize-log-done.json"), 0).
					on("nvme id-ns PATH -o json", tool(t, "nvme-id-ns-dlfeat1.json"), 0)
			}, "", []string{"read back as zeros"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := stand(t, tc.content)
			x := tc.exec(path)
			if a, ok := x.answers["nvme id-ns PATH -o json"]; ok {
				x.answers["nvme id-ns "+path+" -o json"] = a
			}
			d := Dev{Path: path, Kind: device.KindBlock, Interface: "NVMe", Controller: "/dev/nvme0", NSID: 1, Capacity: 1 << 20}
			res, err := (&Purger{Method: tc.method, Devs: []Dev{d}, Exec: x, Poll: time.Millisecond}).Purge(context.Background())
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			for _, s := range tc.says {
				assert.Contains(t, res.Verified, s)
			}
		})
	}
}

// What discarded blocks read as is read from the device: zeros only where
// it promises them.
func TestDiscardExpectation(t *testing.T) {
	x := (&fakeExec{}).
		on("nvme id-ns /dev/nvme0n1 -o json", tool(t, "nvme-id-ns-dlfeat1.json"), 0).
		on("nvme id-ns /dev/nvme1n1 -o json", tool(t, "nvme-id-ns-dlfeat0.json"), 0).
		on("hdparm -I /dev/sda", tool(t, "hdparm-I-rzat.txt"), 0).
		on("hdparm -I /dev/sdc", tool(t, "hdparm-I-ready.txt"), 0).
		on("sg_readcap --long /dev/sdb", tool(t, "sg_readcap-lbprz1.txt"), 0)
	for _, tc := range []struct {
		d       Dev
		pattern int
		why     string
	}{
		{Dev{Path: "/dev/nvme0n1", Interface: "NVMe", Kind: device.KindBlock}, 0, "DLFEAT 1"},
		{Dev{Path: "/dev/nvme1n1", Interface: "NVMe", Kind: device.KindBlock}, -1, "does not say"},
		{Dev{Path: "/dev/sda", Interface: "SATA", Kind: device.KindBlock}, 0, "RZAT"},
		{Dev{Path: "/dev/sdc", Interface: "SATA", Kind: device.KindBlock}, -1, "no RZAT"},
		{Dev{Path: "/dev/sdb", Interface: "SAS", Kind: device.KindBlock}, 0, "LBPRZ 1"},
		{Dev{Path: "/dev/sdd", Interface: "SAS", Kind: device.KindBlock}, -1, "LBPRZ is not 1"},
		{Dev{Path: "/dev/loop0", Interface: "loop", Kind: device.KindBlock}, 0, "backing file"},
		{Dev{Path: "/dev/vda", Interface: "virtio", Kind: device.KindBlock}, -1, "does not say"},
	} {
		p, why := discardedZeros(context.Background(), tc.d, completion{}, &recorder{x: x})
		assert.Equal(t, tc.pattern, p, tc.d.Path)
		assert.Contains(t, why, tc.why, tc.d.Path)
	}
}

func TestSCSISenseAfterCompletion(t *testing.T) {
	sdb := Dev{Path: "/dev/sdb", Kind: device.KindBlock, Interface: "SAS", Capacity: 1 << 30}
	x := (&fakeExec{}).
		on("sg_format --format --early /dev/sdb", "", 0).
		on("sg_requests --progress /dev/sdb", tool(t, "sg_requests-progress.txt"), 0).
		on("sg_requests --progress /dev/sdb", tool(t, "sg_requests-medium-error.txt"), 0)
	_, err := commands(t, SCSIFormat, sdb, x)
	assert.ErrorContains(t, err, "sg_format ended with sense key Medium Error (Format command failed)")
}

// Sanitize, and a format whose FNA says so, erase every namespace of the
// controller: auto prefers a format of the target's namespace alone, and a
// controller-wide method needs every other namespace confirmed.
func TestControllerWidePurge(t *testing.T) {
	two := Dev{Path: "/dev/nvme1n1", Kind: device.KindBlock, Interface: "NVMe", Controller: "/dev/nvme1", NSID: 1,
		Namespaces: []string{"/dev/nvme1n2"}, Capacity: 1 << 30}
	idctrl := func(file string) *fakeExec {
		return (&fakeExec{}).on("nvme id-ctrl /dev/nvme1 -o json", tool(t, file), 0)
	}
	refuse := func(d Dev, erased []string, what string) error {
		return fmt.Errorf("%w: %s erases %v too", device.ErrUnsafe, what, erased)
	}
	var asked []string
	allow := func(d Dev, erased []string, what string) error {
		asked = append(asked, fmt.Sprintf("%s %v: %s", d.Path, erased, what))
		return nil
	}

	// FNA 4: formats and their secure erase stay in the namespace.
	ch, err := (&Purger{Method: Auto, Devs: []Dev{two}, Exec: idctrl("nvme-id-ctrl.json"), ConfirmWide: refuse}).Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, NVMeFormat, ch.Method, "a namespace-scoped format before a controller-wide sanitize")
	assert.Empty(t, ch.Erased)

	// FNA 5: every compliant method is controller-wide: confirmed, or refused.
	_, err = (&Purger{Method: Auto, Devs: []Dev{two}, Exec: idctrl("nvme-id-ctrl-fna-all.json"), ConfirmWide: refuse}).Resolve(context.Background())
	require.ErrorIs(t, err, device.ErrUnsafe, "auto does not fall back to a substitute behind the user's back")
	ch, err = (&Purger{Method: Auto, Devs: []Dev{two}, Exec: idctrl("nvme-id-ctrl-fna-all.json"), ConfirmWide: allow}).Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, NVMeSanitize, ch.Method)
	assert.Equal(t, []string{"/dev/nvme1n1", "/dev/nvme1n2"}, ch.Erased)
	assert.Equal(t, []string{"/dev/nvme1n1 [/dev/nvme1n2]: NVMe Sanitize, block erase (SANACT 2), polled to completion"}, asked)

	// Asked for by name: the same rules; without a way to confirm, refused.
	_, err = (&Purger{Method: NVMeSanitize, Devs: []Dev{two}, Exec: idctrl("nvme-id-ctrl.json")}).Resolve(context.Background())
	require.ErrorIs(t, err, device.ErrUnsafe)
	assert.ErrorContains(t, err, "erases every namespace of /dev/nvme1, also /dev/nvme1n2")
	_, err = (&Purger{Method: NVMeSanitize, Devs: []Dev{two}, Exec: idctrl("nvme-id-ctrl.json"), ConfirmWide: refuse}).Resolve(context.Background())
	require.ErrorIs(t, err, device.ErrUnsafe)

	// The purge that runs records every namespace it erased.
	x := idctrl("nvme-id-ctrl-fna-all.json").
		on("nvme format /dev/nvme1n1 --ses=1 --namespace-id=1 --force", "Success formatting namespace:1\n", 0)
	res, err := (&Purger{Method: NVMeFormat, Devs: []Dev{two}, Exec: x, ConfirmWide: allow}).Purge(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"/dev/nvme1n1", "/dev/nvme1n2"}, res.Erased)

	// A namespace alone on its controller needs nothing more.
	one := two
	one.Namespaces = nil
	ch, err = (&Purger{Method: Auto, Devs: []Dev{one}, Exec: idctrl("nvme-id-ctrl-fna-all.json")}).Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, NVMeSanitize, ch.Method)
	assert.Empty(t, ch.Erased)
}

func TestCacheControl(t *testing.T) {
	x := (&fakeExec{}).
		on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl-client.json"), 0).
		on("nvme get-feature /dev/nvme0 -f 6", tool(t, "nvme-get-feature-6-on.txt"), 0).
		on("nvme set-feature /dev/nvme0 -f 6 -v 0", "set-feature:0x06 (Volatile Write Cache), value:00000000\n", 0).
		on("hdparm -W /dev/sda", tool(t, "hdparm-W-on.txt"), 0).
		on("hdparm -W0 /dev/sda", "\n/dev/sda:\n setting drive write-caching to 0 (off)\n write-caching =  0 (off)\n", 0).
		on("sdparm --get=WCE /dev/sdb", tool(t, "sdparm-WCE-off.txt"), 0).
		on("sdparm --set=WCE=1 /dev/sdb", "", 0)
	c := &CacheControl{Devs: []Dev{nvmeDev}, Exec: x}
	on, err := c.WriteCache()
	require.NoError(t, err)
	assert.True(t, on)
	require.NoError(t, c.SetWriteCache(false))
	sata := &CacheControl{Devs: []Dev{{Path: "/dev/sda", Interface: "SATA"}}, Exec: x}
	on, err = sata.WriteCache()
	require.NoError(t, err)
	assert.True(t, on)
	require.NoError(t, sata.SetWriteCache(false))
	sas := &CacheControl{Devs: []Dev{{Path: "/dev/sdb", Interface: "SAS"}}, Exec: x}
	on, err = sas.WriteCache()
	require.NoError(t, err)
	assert.False(t, on)
	require.NoError(t, sas.SetWriteCache(true))
	assert.Len(t, c.TakeCommands(), 3, "id-ctrl once, get, set")
	assert.Empty(t, c.TakeCommands())
	loop := &CacheControl{Devs: []Dev{{Path: "/dev/loop0", Interface: "loop"}}, Exec: x}
	_, err = loop.WriteCache()
	assert.ErrorContains(t, err, "cannot be read")

	// A target set: a device that cannot be set does not keep the others
	// from being set, and every failure is named.
	x.on("hdparm -W0 /dev/sda", "\n/dev/sda:\n setting drive write-caching to 0 (off)\n", 0)
	x.calls = nil
	mixed := &CacheControl{Devs: []Dev{{Path: "/dev/loop0", Interface: "loop"}, {Path: "/dev/sda", Interface: "SATA"},
		{Path: "/tmp/f", Interface: "file"}}, Exec: x}
	err = mixed.SetWriteCache(false)
	require.Error(t, err)
	assert.Equal(t, "the write cache of /dev/loop0 (loop) cannot be set; the write cache of /tmp/f (file) cannot be set", err.Error())
	assert.Equal(t, []string{"hdparm -W0 /dev/sda"}, x.calls)
}

// In a set whose write caches differ, each device is read and put back on
// its own; one that cannot be read is left out.
func TestDeviceWriteCaches(t *testing.T) {
	x := (&fakeExec{}).
		on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl-client.json"), 0).
		on("nvme get-feature /dev/nvme0 -f 6", tool(t, "nvme-get-feature-6-on.txt"), 0).
		on("hdparm -W /dev/sda", "\n/dev/sda:\n write-caching =  0 (off)\n", 0).
		on("nvme set-feature /dev/nvme0 -f 6 -v 1", "set-feature:0x06 (Volatile Write Cache), value:00000001\n", 0).
		on("hdparm -W0 /dev/sda", "\n/dev/sda:\n setting drive write-caching to 0 (off)\n", 0)
	c := &CacheControl{Devs: []Dev{nvmeDev, {Path: "/dev/sda", Interface: "SATA"}, {Path: "/dev/loop0", Interface: "loop"}}, Exec: x}
	_, err := c.WriteCache()
	require.Error(t, err, "no one state for the set")
	states := c.DeviceWriteCaches()
	assert.Equal(t, map[string]bool{nvmeDev.Path: true, "/dev/sda": false}, states)
	c.TakeCommands()
	x.calls = nil
	require.NoError(t, c.RestoreDeviceWriteCaches(states))
	assert.Equal(t, []string{"nvme id-ctrl /dev/nvme0 -o json", "nvme set-feature /dev/nvme0 -f 6 -v 1", "hdparm -W0 /dev/sda"}, x.calls)
	assert.Len(t, c.TakeCommands(), 3, "journaled")
}

// A drive whose Identify Controller says it has no volatile write cache (VWC
// bit 0 clear) is not asked to set one: there is nothing to set.
func TestNoVolatileWriteCache(t *testing.T) {
	x := (&fakeExec{}).on("nvme id-ctrl /dev/nvme0 -o json", tool(t, "nvme-id-ctrl.json"), 0)
	c := &CacheControl{Devs: []Dev{nvmeDev}, Exec: x}
	_, err := c.WriteCache()
	require.ErrorIs(t, err, ErrNoVolatileCache)
	require.NoError(t, c.SetWriteCache(false))
	require.NoError(t, c.SetWriteCache(true))
	assert.Equal(t, []string{"nvme id-ctrl /dev/nvme0 -o json"}, x.calls, "no get-feature or set-feature, which such a drive rejects")
	assert.Empty(t, c.DeviceWriteCaches())
}

// fakeRemote is an engine that runs purge substitutes on fio servers.
type fakeRemote struct {
	fail  map[string]string // job → error
	calls []string
}

func (f *fakeRemote) Purge(_ context.Context, job string) (engine.PurgeReport, error) {
	f.calls = append(f.calls, job)
	rep := engine.PurgeReport{Args: []string{"fio", "--client=ip:10.0.0.2,8765", "purge-" + job + ".host0.fio"}, Duration: time.Second}
	if why := f.fail[job]; why != "" {
		rep.Exit, rep.Output = 1, "10.0.0.2:8765=/dev/sdb: "+why
		return rep, errors.New(why)
	}
	rep.Output = "10.0.0.2:8765=/dev/sdb: 1000 bytes done"
	rep.Verified = "10.0.0.2:8765=/dev/sdb: checked " + job
	return rep, nil
}

func TestRemotePurge(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		fail         map[string]string
		calls        []string
		want         string // method used
		note, err    string
	}{
		{"auto takes the trim", Auto, nil, []string{"trim"}, Discard, "auto: targets on fio servers are reached only through fio, which has no PTS purge. discard", ""},
		{"auto falls back to zeros", Auto, map[string]string{"trim": "it takes no discards"}, []string{"trim", "zero-fill"}, ZeroFill,
			"the trim failed (discard: it takes no discards), so zeros were written instead", ""},
		{"discard", Discard, nil, []string{"trim"}, Discard, "by an fio trim job (rw=trim) run through the fio servers: a substitute, not a PTS purge", ""},
		{"zero-fill", ZeroFill, nil, []string{"zero-fill"}, ZeroFill, "zeros written over every block by an fio job", ""},
		{"discard fails alone", Discard, map[string]string{"trim": "it takes no discards"}, []string{"trim"}, Discard, "",
			"purge through the fio servers: discard: it takes no discards"},
		{"both fail", Auto, map[string]string{"trim": "no discards", "zero-fill": "I/O error"}, []string{"trim", "zero-fill"}, ZeroFill, "",
			"purge through the fio servers: discard: no discards; then zero-fill: I/O error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRemote{fail: tc.fail}
			var progress []string
			res, err := (&Purger{Method: tc.method, Engine: f, Progress: func(s string) { progress = append(progress, s) }}).Purge(context.Background())
			assert.Equal(t, tc.calls, f.calls)
			assert.Equal(t, tc.want, res.Method)
			assert.False(t, res.Compliant, "never a PTS purge")
			require.Len(t, res.Commands, len(tc.calls), "every fio invocation is recorded")
			assert.Equal(t, "fio", res.Commands[0].Args[0])
			assert.Len(t, progress, len(tc.calls))
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, res.Note, tc.note)
			assert.Contains(t, res.Note, "not a PTS purge")
			assert.Equal(t, "10.0.0.2:8765=/dev/sdb: checked "+tc.calls[len(tc.calls)-1], res.Verified)
			assert.Positive(t, res.Duration)
		})
	}
}

// On a partition every PTS purge erases the whole disk (or namespace, or
// controller): auto takes one only when all it erases is confirmed, and
// otherwise purges the partition alone with a substitute; a method asked
// for by name is refused (issue 19).
func TestPartitionPurgeScope(t *testing.T) {
	nvmePart := Dev{Path: "/dev/nvme1n2p1", Disk: "/dev/nvme1n2", Kind: device.KindBlock, Interface: "NVMe", Controller: "/dev/nvme1",
		NSID: 2, Namespaces: []string{"/dev/nvme1n1"}, Capacity: 1 << 30, Discard: true}
	sataPart := Dev{Path: "/dev/sdc1", Disk: "/dev/sdc", Kind: device.KindBlock, Interface: "SATA", Capacity: 1 << 30, Discard: true}
	nvme := func(idctrl string) func() *fakeExec {
		return func() *fakeExec { return (&fakeExec{}).on("nvme id-ctrl /dev/nvme1 -o json", tool(t, idctrl), 0) }
	}
	sata := func() *fakeExec {
		x := &fakeExec{}
		for range 8 {
			x.on("hdparm -I /dev/sdc", tool(t, "hdparm-I-ready.txt"), 0)
		}
		return x
	}
	// confirmed allows a purge whose every erased device is listed.
	confirmed := func(names ...string) func(Dev, []string, string) error {
		return func(d Dev, erased []string, what string) error {
			for _, e := range erased {
				if !slices.Contains(names, e) {
					return fmt.Errorf("%w: %s erases %s, which --destroy-data does not name", device.ErrUnsafe, what, e)
				}
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name    string
		dev     Dev
		x       func() *fakeExec
		method  string
		confirm func(Dev, []string, string) error
		want    string   // the method chosen; "" refused
		erased  []string // what the choice erases
	}{
		{"nvme auto, disk not named: a substitute on the partition", nvmePart, nvme("nvme-id-ctrl.json"), Auto, confirmed(), Discard, nil},
		{"nvme auto, disk named: the namespace's format", nvmePart, nvme("nvme-id-ctrl.json"), Auto, confirmed("/dev/nvme1n2"),
			NVMeFormat, []string{"/dev/nvme1n2p1", "/dev/nvme1n2"}},
		{"nvme auto, FNA all, disk named: the controller is not", nvmePart, nvme("nvme-id-ctrl-fna-all.json"), Auto, confirmed("/dev/nvme1n2"), Discard, nil},
		{"nvme auto, FNA all, controller named", nvmePart, nvme("nvme-id-ctrl-fna-all.json"), Auto, confirmed("/dev/nvme1n2", "/dev/nvme1n1"),
			NVMeSanitize, []string{"/dev/nvme1n2p1", "/dev/nvme1n2", "/dev/nvme1n1"}},
		{"nvme sanitize by name, partition alone named", nvmePart, nvme("nvme-id-ctrl.json"), NVMeSanitize, confirmed(), "", nil},
		{"nvme sanitize by name, disk named, not the other namespace", nvmePart, nvme("nvme-id-ctrl.json"), NVMeSanitize, confirmed("/dev/nvme1n2"), "", nil},
		{"nvme format by name, nothing to confirm with", nvmePart, nvme("nvme-id-ctrl.json"), NVMeFormat, nil, "", nil},
		{"sata auto, disk not named", sataPart, sata, Auto, confirmed(), Discard, nil},
		{"sata auto, disk named", sataPart, sata, Auto, confirmed("/dev/sdc"), ATASecureErase, []string{"/dev/sdc1", "/dev/sdc"}},
		{"sata secure erase by name", sataPart, sata, ATASecureErase, confirmed(), "", nil},
		{"discard by name stays in the partition", sataPart, sata, Discard, nil, Discard, nil},
		{"zero-fill by name stays in the partition", nvmePart, nvme("nvme-id-ctrl.json"), ZeroFill, nil, ZeroFill, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.x()
			ch, err := (&Purger{Method: tc.method, Devs: []Dev{tc.dev}, Exec: x, ConfirmWide: tc.confirm}).Resolve(context.Background())
			for _, c := range x.calls {
				assert.Regexp(t, `^(nvme id-ctrl|hdparm -I) `, c, "only probes run before the gate decides")
			}
			if tc.want == "" {
				require.ErrorIs(t, err, device.ErrUnsafe, "exit 4")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, ch.Method)
			assert.Equal(t, tc.erased, ch.Erased)
			if tc.method == Auto && !ch.method.compliant {
				assert.Contains(t, ch.note, "which --destroy-data does not name", "the note says why the partition got a substitute")
			}
		})
	}

	// The purge that runs addresses the disk, never the partition's node
	// with the namespace's ID.
	x := nvme("nvme-id-ctrl.json")().on("nvme format /dev/nvme1n2 --ses=1 --namespace-id=2 --force", "Success formatting namespace:2\n", 0)
	res, err := (&Purger{Method: NVMeFormat, Devs: []Dev{nvmePart}, Exec: x, ConfirmWide: confirmed("/dev/nvme1n2")}).Purge(context.Background())
	require.NoError(t, err)
	assert.Contains(t, x.calls, "nvme format /dev/nvme1n2 --ses=1 --namespace-id=2 --force")
	assert.Equal(t, []string{"/dev/nvme1n2p1", "/dev/nvme1n2"}, res.Erased)
}
