package telemetry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seed adds every fixture of testdata/DIR as stdout, and as stderr.
func seed(f *testing.F, dir string) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	require.NoError(f, err)
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b, []byte(nil), 0)
		f.Add([]byte(nil), b, 1)
	}
}

// checkParsed holds what every parse promises: an error, or a reading of
// the device with something known, every figure from the source, that
// JSON keeps as it is.
func checkParsed(t *testing.T, source string, r Reading, err error) {
	if err != nil {
		assert.True(t, r.Empty())
		assert.NotEmpty(t, err.Error())
		return
	}
	assert.False(t, r.Empty())
	assert.Equal(t, "/dev/x", r.Device)
	assert.Equal(t, []string{source}, r.Sources)
	assertFieldsFrom(t, r, source)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var back Reading
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r, back)
}

func FuzzParseSmartctl(f *testing.F) {
	seed(f, "smartctl")
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, exit int) {
		r, err := parseSmartctlResult("/dev/x", Result{Stdout: stdout, Stderr: stderr, ExitCode: exit})
		checkParsed(t, SourceSmartctl, r, err)
	})
}

func FuzzParseNVMeSmartLog(f *testing.F) {
	seed(f, "nvme")
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, exit int) {
		r, err := parseNVMeResult("/dev/x", Result{Stdout: stdout, Stderr: stderr, ExitCode: exit})
		checkParsed(t, SourceNVMe, r, err)
	})
}

func FuzzParseOCPSmartLog(f *testing.F) {
	seed(f, "ocp")
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, exit int) {
		r, err := parseOCPResult("/dev/x", Result{Stdout: stdout, Stderr: stderr, ExitCode: exit})
		checkParsed(t, SourceOCP, r, err)
	})
}

// FuzzParseHwmon feeds a hwmon directory of two channels: each file's
// content, as the kernel (or a broken driver) might print it.
func FuzzParseHwmon(f *testing.F) {
	hw := func(dir string) (out []string) {
		for _, n := range []string{"temp1_input", "temp1_label", "temp1_max", "temp1_crit", "temp2_input", "temp2_label"} {
			b, _ := os.ReadFile(filepath.Join(dir, n))
			out = append(out, string(b))
		}
		return out
	}
	for _, d := range []string{
		"testdata/sysfs/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/hwmon1",
		"testdata/sysfs/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/hwmon/hwmon0",
		"testdata/sysfs/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/hwmon/hwmon2",
	} {
		v := hw(d)
		require.NotEmpty(f, v[0], d)
		f.Add(v[0], v[1], v[2], v[3], v[4], v[5])
	}
	f.Fuzz(func(t *testing.T, in1, label1, max1, crit1, in2, label2 string) {
		files := map[string]string{}
		for k, v := range map[string]string{"temp1_input": in1, "temp1_label": label1, "temp1_max": max1,
			"temp1_crit": crit1, "temp2_input": in2, "temp2_label": label2} {
			if v != "" {
				files[k] = strings.TrimSpace(v)
			}
		}
		r, err := parseHwmon("/dev/x", files)
		checkParsed(t, SourceHwmon, r, err)
		if err == nil {
			assert.True(t, r.Temperature.Known(), "a reading of hwmon has the drive's temperature")
		}
	})
}
