package telemetry

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixtures is the fake sysfs of testdata/sysfs (testdata/mksysfs.sh).
var fixtures = device.FS{Root: "testdata/sysfs"}

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// canned is a Runner that answers each command line with a Result, and
// fails any other as a missing tool would.
type canned map[string]Result

func (c canned) run(_ context.Context, name string, args ...string) (Result, error) {
	line := strings.Join(append([]string{name}, args...), " ")
	if r, ok := c[line]; ok {
		return r, nil
	}
	return Result{}, fmt.Errorf("%w: canned has no %q", ErrNoTool, line)
}

func block(t testing.TB, name string) *device.Block {
	t.Helper()
	b, err := fixtures.Block(name)
	require.NoError(t, err)
	return &b
}

func TestDetect(t *testing.T) {
	nvme := func(dev string) []string {
		return []string{SourceNVMe + " nvme smart-log " + dev + " -o json",
			SourceOCP + " nvme ocp smart-add-log " + dev + " -o json",
			SourceSmartctl + " smartctl --json -a " + dev}
	}
	smartctl := func(dev string) string { return SourceSmartctl + " smartctl --json -a " + dev }
	for _, tc := range []struct {
		name string
		want []string // each source's name and Where
	}{
		{"nvme0n1", append([]string{"hwmon /sys/class/block/nvme0n1/device/hwmon1"}, nvme("/dev/nvme0n1")...)},
		{"nvme0n1p1", append([]string{"hwmon /sys/class/block/nvme0n1/device/hwmon1"}, nvme("/dev/nvme0n1")...)},
		{"nvme1n1", append([]string{"hwmon /sys/class/block/nvme1n1/device/device/hwmon/hwmon0"}, nvme("/dev/nvme1n1")...)},
		{"nvme3n1", append([]string{"hwmon /sys/class/block/nvme3n1/device/nvme3/hwmon4"}, nvme("/dev/nvme3n1")...)},
		{"nvme4n1", nvme("/dev/nvme4n1")},
		{"sda", []string{"hwmon /sys/class/block/sda/device/hwmon/hwmon2", smartctl("/dev/sda")}},
		{"sdb", []string{smartctl("/dev/sdb")}},
		{"sdc", []string{smartctl("/dev/sdc")}},
		{"loop0", nil},
		{"dm-0", nil},
		{"vda", nil},
		{"zram0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range (Probe{FS: fixtures}).Detect(block(t, tc.name)) {
				got = append(got, s.Name()+" "+s.Where())
				assert.Equal(t, "/dev/"+strings.TrimSuffix(tc.name, "p1"), s.Device())
			}
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("a file or a simulated drive", func(t *testing.T) {
		assert.Empty(t, Probe{FS: fixtures}.Detect(nil))
	})
}

// GoldenFile is goldentest.File, set by golden_test.go (package
// telemetry_test): goldentest reaches telemetry through pts, which only
// an external test package may import.
var GoldenFile func(t testing.TB, path string, got []byte, update bool)

// golden writes a reading as JSON and compares it with testdata/golden/NAME.json.
func golden(t *testing.T, name string, r Reading) {
	t.Helper()
	b, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	GoldenFile(t, filepath.Join("testdata", "golden", name+".json"), append(b, '\n'), *update)
}

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		parse   func(string, []byte) (Reading, error)
		dev     string
	}{
		{"smartctl/nvme.json", ParseSmartctl, "/dev/nvme0n1"},
		{"smartctl/nvme-warning.json", ParseSmartctl, "/dev/nvme1n1"},
		{"smartctl/ata-ssd.json", ParseSmartctl, "/dev/sda"},
		{"smartctl/ata-intel.json", ParseSmartctl, "/dev/sdb"},
		{"smartctl/ata-hdd.json", ParseSmartctl, "/dev/sdb"},
		{"smartctl/scsi.json", ParseSmartctl, "/dev/sdc"},
		{"nvme/smart-log-2.3.json", ParseNVMeSmartLog, "/dev/nvme0n1"},
		{"nvme/smart-log-3.0.json", ParseNVMeSmartLog, "/dev/nvme1n1"},
		{"nvme/smart-log-verbose.json", ParseNVMeSmartLog, "/dev/nvme0n1"},
		{"nvme/smart-log-1.16.json", ParseNVMeSmartLog, "/dev/nvme0n1"},
		{"ocp/smart-add-log-2.3.json", ParseOCPSmartLog, "/dev/nvme0n1"},
		{"ocp/smart-add-log-v2.json", ParseOCPSmartLog, "/dev/nvme0n1"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r, err := tc.parse(tc.dev, read(t, tc.fixture))
			require.NoError(t, err)
			assert.Len(t, r.Sources, 1)
			assertFieldsFrom(t, r, r.Sources[0])
			golden(t, strings.TrimSuffix(strings.ReplaceAll(tc.fixture, "/", "-"), ".json"), r)
		})
	}
}

// assertFieldsFrom checks that every known field of r names source.
func assertFieldsFrom(t *testing.T, r Reading, source string) {
	t.Helper()
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		if f, ok := v.Field(i).Interface().(interface{ Known() bool }); ok && f.Known() {
			assert.Equal(t, source, v.Field(i).FieldByName("Source").String(), v.Type().Field(i).Name)
		}
	}
}

// Figures the goldens hold, said once more where a mistake would matter.
func TestParsedFigures(t *testing.T) {
	nv, err := ParseSmartctl("/dev/nvme0n1", read(t, "smartctl/nvme.json"))
	require.NoError(t, err)
	assert.Equal(t, uint64(53846123*512000), nv.BytesWritten.Value, "NVMe data units are 1000 × 512 bytes")
	assert.Equal(t, []Sensor{{"Sensor 1", 39}, {"Sensor 2", 46}}, nv.Sensors.Value)
	assert.Equal(t, Field[float64]{82, SourceSmartctl}, nv.WarningTemp)
	assert.Equal(t, Field[uint64]{1260, SourceSmartctl}, nv.ThermalMgmt1Seconds)

	warn, err := ParseSmartctl("/dev/nvme1n1", read(t, "smartctl/nvme-warning.json"))
	require.NoError(t, err, "exit status 12 (a failed log read, a failing drive) still gives the figures")
	assert.Equal(t, CriticalWarning{Raw: 6, Flags: []string{"temperature", "reliability_degraded"}}, warn.CriticalWarning.Value)
	assert.False(t, warn.SMARTPassed.Value)
	assert.True(t, warn.SMARTPassed.Known())
	assert.False(t, warn.BytesWritten.Known(), "more data units than 64 bits of bytes hold: not known, not wrapped")
	assert.Equal(t, []Sensor{{"Sensor 1", 71}, {"Sensor 3", 74}}, warn.Sensors.Value, "a sensor smartctl left null is not there")
	assert.False(t, warn.ThermalMgmt1Transitions.Known(), "smartctl 7.3 does not print them")

	intel, err := ParseSmartctl("/dev/sdb", read(t, "smartctl/ata-intel.json"))
	require.NoError(t, err)
	assert.Equal(t, uint64(1193046)<<25, intel.BytesWritten.Value, "Host_Writes_32MiB counts 32 MiB")
	assert.Equal(t, uint64(1), intel.CommandTimeouts.Value, "188's packed raw value read as smartctl prints it")
	assert.Equal(t, uint64(2), intel.ErrorLogEntries.Value)

	hdd, err := ParseSmartctl("/dev/sdb", read(t, "smartctl/ata-hdd.json"))
	require.NoError(t, err)
	assert.Equal(t, uint64(81234570001*512), hdd.BytesWritten.Value, "device statistics before attribute 241")
	assert.Equal(t, Field[float64]{60, SourceSmartctl}, hdd.WarningTemp)

	scsi, err := ParseSmartctl("/dev/sdc", read(t, "smartctl/scsi.json"))
	require.NoError(t, err)
	assert.Equal(t, Field[float64]{65, SourceSmartctl}, scsi.CriticalTemp)
	assert.Equal(t, Field[uint64]{1, SourceSmartctl}, scsi.MediaErrors)
	assert.Equal(t, Field[uint64]{3, SourceSmartctl}, scsi.GrownDefects)

	cli, err := ParseNVMeSmartLog("/dev/nvme0n1", read(t, "nvme/smart-log-2.3.json"))
	require.NoError(t, err)
	assert.InDelta(t, 38.85, cli.Temperature.Value, 1e-9, "nvme-cli prints kelvins")
	assert.Equal(t, nv.BytesWritten, Field[uint64]{cli.BytesWritten.Value, SourceSmartctl}, "strings and numbers read alike")

	for _, f := range []string{"ocp/smart-add-log-2.3.json", "ocp/smart-add-log-v2.json"} {
		ocp, err := ParseOCPSmartLog("/dev/nvme0n1", read(t, f))
		require.NoError(t, err)
		assert.Equal(t, Field[uint64]{81298457346048, SourceOCP}, ocp.NANDBytesWritten, f)
		assert.Equal(t, Field[uint64]{3, SourceOCP}, ocp.ThrottlingEvents, f)
	}
}

func TestHwmon(t *testing.T) {
	for _, name := range []string{"nvme0n1", "nvme1n1", "nvme3n1", "sda"} {
		t.Run(name, func(t *testing.T) {
			srcs := Probe{FS: fixtures}.Detect(block(t, name))
			require.NotEmpty(t, srcs)
			require.Equal(t, SourceHwmon, srcs[0].Name())
			r, err := srcs[0].Read(context.Background())
			require.NoError(t, err)
			assertFieldsFrom(t, r, SourceHwmon)
			golden(t, "hwmon-"+name, r)
		})
	}
	t.Run("an input that cannot be read is left out", func(t *testing.T) {
		dir := t.TempDir()
		for f, v := range map[string]string{"name": "nvme", "temp1_label": "Composite", "temp1_input": "40850", "temp2_label": "Sensor 1"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(v+"\n"), 0o644))
		}
		require.NoError(t, os.Mkdir(filepath.Join(dir, "temp2_input"), 0o755)) // reads fail, as EIO would
		r, err := hwmonSource{fs: device.FS{Root: dir}, dir: ".", dev: "/dev/nvme9n1"}.Read(context.Background())
		require.NoError(t, err)
		assert.Equal(t, Field[float64]{40.85, SourceHwmon}, r.Temperature)
		assert.False(t, r.Sensors.Known())
	})
	t.Run("no input readable", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(dir, "temp1_input"), 0o755))
		_, err := hwmonSource{fs: device.FS{Root: dir}, dir: "hwmon7", dev: "/dev/sdz"}.Read(context.Background())
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "hwmon on /dev/sdz: /hwmon7: no temperature readable", err.Error())
	})
}

// nvme0n1's four sources, each with its canned output.
func nvme0Sources(t *testing.T, smartctl, nvme, ocp Result) []Source {
	run := canned{
		"smartctl --json -a /dev/nvme0n1":             smartctl,
		"nvme smart-log /dev/nvme0n1 -o json":         nvme,
		"nvme ocp smart-add-log /dev/nvme0n1 -o json": ocp,
	}
	return Probe{FS: fixtures, Run: run.run}.Detect(block(t, "nvme0n1"))
}

func TestMerge(t *testing.T) {
	srcs := nvme0Sources(t,
		Result{Stdout: read(t, "smartctl/nvme.json")},
		Result{Stdout: read(t, "nvme/smart-log-2.3.json")},
		Result{Stdout: read(t, "ocp/smart-add-log-2.3.json")})
	r, errs := ReadAll(context.Background(), srcs)
	require.Empty(t, errs)
	assert.Equal(t, []string{SourceHwmon, SourceNVMe, SourceOCP, SourceSmartctl}, r.Sources)
	assert.Equal(t, SourceHwmon, r.Temperature.Source, "hwmon first")
	assert.Equal(t, SourceHwmon, r.Sensors.Source)
	assert.Equal(t, SourceNVMe, r.BytesWritten.Source, "then nvme-cli")
	assert.Equal(t, SourceOCP, r.NANDBytesWritten.Source)
	assert.Equal(t, SourceSmartctl, r.SMARTPassed.Source, "smartctl for what only it says")
	golden(t, "merged-nvme0n1", r)

	t.Run("sources that fail leave their fields to the others", func(t *testing.T) {
		srcs := nvme0Sources(t,
			Result{Stdout: read(t, "smartctl/nvme.json")},
			Result{Stderr: read(t, "nvme/real-virtio-eperm.stderr"), ExitCode: 1},
			Result{Stderr: read(t, "ocp/not-ocp.stderr"), ExitCode: 1})
		r, errs := ReadAll(context.Background(), srcs)
		require.Len(t, errs, 2)
		assert.ErrorIs(t, errs[0], ErrPermission)
		assert.ErrorIs(t, errs[1], ErrUnsupported)
		assert.Equal(t, []string{SourceHwmon, SourceSmartctl}, r.Sources)
		assert.Equal(t, SourceSmartctl, r.BytesWritten.Source)
		assert.False(t, r.NANDBytesWritten.Known())
	})
	t.Run("every field is merged", func(t *testing.T) {
		var full Reading
		v := reflect.ValueOf(&full).Elem()
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.Struct {
				f.FieldByName("Source").SetString("x")
			}
		}
		assert.Equal(t, full, Merge(Reading{}, full))
		assert.Equal(t, full, Merge(full, Reading{}))
	})
	t.Run("nothing read", func(t *testing.T) {
		r, errs := ReadAll(context.Background(), nil)
		assert.Empty(t, errs)
		assert.True(t, r.Empty())
	})
}

func TestReadErrors(t *testing.T) {
	sata := func(run canned) Source {
		srcs := Probe{FS: fixtures, Run: run.run}.Detect(block(t, "sdb"))
		require.Len(t, srcs, 1)
		return srcs[0]
	}
	nvme := func(i int, res Result) Source {
		return nvme0Sources(t, res, res, res)[i]
	}
	for _, tc := range []struct {
		name string
		src  Source
		is   error // nil: none of the lasting ones
		msg  string
	}{
		{"smartctl not installed", sata(canned{}), ErrNoTool,
			`smartctl on /dev/sdb: tool not installed: canned has no "smartctl --json -a /dev/sdb"`},
		{"smartctl cannot tell the device (real)", sata(canned{"smartctl --json -a /dev/sdb": {
			Stdout: read(t, "smartctl/real-virtio-unknown-type.json"), ExitCode: 1}}), ErrUnsupported,
			`smartctl on /dev/sdb: not supported by the device: smartctl says "/dev/vda: Unable to detect device type" (exit status 1)`},
		{"smartctl not permitted (real)", sata(canned{"smartctl --json -a /dev/sdb": {
			Stdout: read(t, "smartctl/real-sat-eperm.json"), ExitCode: 2}}), ErrPermission,
			`smartctl on /dev/sdb: permission denied: smartctl says "Smartctl open device: /dev/vda [SAT] failed: Operation not permitted" (exit status 2)`},
		{"smartctl older than 7.0", sata(canned{"smartctl --json -a /dev/sdb": {
			Stdout: []byte("smartctl 6.6 2016-05-31 r4324\n=======> UNRECOGNIZED OPTION: json\n"), ExitCode: 1}}), nil,
			"smartctl on /dev/sdb: output is not smartctl's JSON (smartctl 7.0 or later prints it with --json): invalid character 's' looking for beginning of value (exit status 1): smartctl 6.6 2016-05-31 r4324"},
		{"smartctl with nothing to say", sata(canned{"smartctl --json -a /dev/sdb": {
			Stdout: []byte(`{"smartctl":{"exit_status":4,"messages":[{"string":"SMART support is: Unavailable - device lacks SMART capability.","severity":"error"}]},"device":{"name":"/dev/sdb"}}`), ExitCode: 4}}),
			ErrUnsupported, "smartctl on /dev/sdb: not supported by the device: smartctl printed no temperature or health (SMART support is: Unavailable - device lacks SMART capability.)"},
		{"nvme-cli not permitted (real)", nvme(1, Result{Stderr: read(t, "nvme/real-virtio-eperm.stderr"), ExitCode: 1}), ErrPermission,
			`nvme-cli on /dev/nvme0n1: permission denied: nvme smart-log says "/dev/vda: Operation not permitted" (exit status 1)`},
		{"nvme-cli on no NVMe device (real)", nvme(1, Result{Stderr: read(t, "nvme/real-devnull-enotty.stderr"), ExitCode: 1}), ErrUnsupported,
			`nvme-cli on /dev/nvme0n1: not supported by the device: nvme smart-log says "smart log: Inappropriate ioctl for device" (exit status 1)`},
		{"nvme-cli on a loop device (real)", nvme(1, Result{Stderr: read(t, "nvme/real-loop-einval.stderr"), ExitCode: 1}), ErrUnsupported,
			`nvme-cli on /dev/nvme0n1: not supported by the device: nvme smart-log says "smart log: Invalid argument" (exit status 1)`},
		{"nvme-cli on a device gone (real)", nvme(1, Result{Stderr: read(t, "nvme/real-absent.stderr"), ExitCode: 1}), nil,
			`nvme-cli on /dev/nvme0n1: failed: nvme smart-log says "/dev/nvme0: No such file or directory" (exit status 1)`},
		{"nvme-cli printing nothing", nvme(1, Result{ExitCode: 1}), nil,
			"nvme-cli on /dev/nvme0n1: nvme smart-log printed nothing (exit status 1)"},
		{"OCP on a drive without the log", nvme(2, Result{Stderr: read(t, "ocp/not-ocp.stderr"), ExitCode: 1}), ErrUnsupported,
			`nvme-cli-ocp on /dev/nvme0n1: not supported by the device: nvme ocp smart-add-log says "NVMe Status:INVALID_LOG_PAGE: The log page indicated is invalid(4109)" (exit status 1)`},
		{"OCP on no NVMe device (real)", nvme(2, Result{Stderr: read(t, "ocp/real-devnull-enotty.stderr"), ExitCode: 1}), ErrUnsupported,
			`nvme-cli-ocp on /dev/nvme0n1: not supported by the device: nvme ocp smart-add-log says "ERROR : OCP : Unable to read C0 data from buffer" (exit status 1)`},
		{"OCP not permitted (real)", nvme(2, Result{Stderr: read(t, "ocp/real-virtio-eperm.stderr"), ExitCode: 1}), ErrPermission,
			`nvme-cli-ocp on /dev/nvme0n1: permission denied: nvme ocp smart-add-log says "/dev/vda: Operation not permitted" (exit status 1)`},
		{"nvme-cli without the ocp plugin", nvme(2, Result{Stderr: read(t, "ocp/no-plugin.stderr"), ExitCode: 1}), ErrNoTool,
			`nvme-cli-ocp on /dev/nvme0n1: tool not installed: nvme ocp smart-add-log says "ERROR: Invalid sub-command 'ocp'": nvme-cli 2.0 or later has it`},
		{"OCP JSON without the figures", nvme(2, Result{Stdout: []byte(`{"Log page version":3}`)}), nil,
			"nvme-cli-ocp on /dev/nvme0n1: output of nvme ocp smart-add-log has no physical media units nor throttling events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.src.Read(context.Background())
			require.Error(t, err)
			assert.True(t, r.Empty())
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.src.Device(), e.Device)
			assert.Equal(t, tc.msg, err.Error())
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
				assert.True(t, Lasting(err))
			} else {
				assert.False(t, Lasting(err))
			}
		})
	}
}

func TestCriticalWarning(t *testing.T) {
	for _, tc := range []struct {
		raw   uint8
		flags []string
		words string
	}{
		{0, nil, "none"},
		{0x01, []string{"spare_below_threshold"}, "0x01: available spare below its threshold"},
		{0x0a, []string{"temperature", "read_only"}, "0x0a: temperature above or below a threshold; media placed in read-only mode"},
		{0xc0, []string{"bit6", "bit7"}, "0xc0: reserved bit 6 set; reserved bit 7 set"},
	} {
		w := DecodeCriticalWarning(tc.raw)
		assert.Equal(t, tc.flags, w.Flags)
		assert.Equal(t, tc.words, w.String())
	}
}

func TestWriteAmplification(t *testing.T) {
	at := func(host, nand uint64) Reading {
		return Reading{BytesWritten: known(host, SourceNVMe), NANDBytesWritten: known(nand, SourceOCP)}
	}
	for _, tc := range []struct {
		name          string
		before, after Reading
		want          float64
		ok            bool
	}{
		{"two to one", at(1000, 1500), at(3000, 5500), 2, true},
		{"the host wrote nothing", at(1000, 1500), at(1000, 1600), 0, false},
		{"no NAND count", Reading{BytesWritten: known(uint64(1), SourceNVMe)}, at(3000, 5500), 0, false},
		{"a counter went back", at(1000, 1500), at(3000, 1000), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := WriteAmplification(tc.before, tc.after)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestReadingJSON(t *testing.T) {
	r, err := ParseSmartctl("/dev/sda", read(t, "smartctl/ata-ssd.json"))
	require.NoError(t, err)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "nand_bytes_written", "an unknown figure is left out, not written as 0")
	var back Reading
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r, back)
}

func TestExec(t *testing.T) {
	res, err := Exec(context.Background(), "sh", "-c", "echo out; echo err >&2; exit 3")
	require.NoError(t, err)
	assert.Equal(t, Result{Stdout: []byte("out\n"), Stderr: []byte("err\n"), ExitCode: 3}, res)

	_, err = Exec(context.Background(), "ptsrun-no-such-tool")
	assert.ErrorIs(t, err, ErrNoTool)
	assert.ErrorContains(t, err, "ptsrun-no-such-tool is not in PATH nor in [/usr/sbin /sbin /usr/local/sbin]")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Exec(ctx, "sh", "-c", "exit 0")
	assert.ErrorIs(t, err, context.Canceled)
}

// TestRealTools runs the tools installed here on a virtio disk of this
// machine's, which none of them can read, taken for a SATA and an NVMe
// disk: each must fail in a way that lasts, as the fixtures hold.
func TestRealTools(t *testing.T) {
	blocks, err := device.Live.Blocks()
	if err != nil || len(blocks) == 0 {
		t.Skip("no block devices here")
	}
	var dev *device.Block
	for _, b := range blocks {
		// Not a loop device: other tests bind and free them while this
		// one runs, and one bound to nothing cannot be opened.
		if !b.Partition && b.SizeBytes > 0 && len(Detect(&b)) == 0 && b.Interface == "virtio" {
			dev = &b
			break
		}
	}
	if dev == nil {
		t.Skip("no virtio disk here to ask the tools about")
	}
	for _, iface := range []string{"SATA", "NVMe"} {
		b := *dev
		b.Interface = iface
		for _, s := range (Probe{FS: device.Live}).Detect(&b) {
			tool := strings.Fields(s.Where())[0]
			if _, err := lookPath(tool); err != nil {
				t.Logf("%s not installed: %v", tool, err)
				continue
			}
			_, err := s.Read(context.Background())
			require.Error(t, err, s.Where())
			assert.True(t, Lasting(err), "%s: %v", s.Where(), err)
			t.Logf("%s: %v", s.Where(), err)
		}
	}
}
