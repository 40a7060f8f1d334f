package targets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/precondition"
)

// idCtrlOnly answers nvme id-ctrl with a captured output; any other command
// would be a purge, and fails the test.
type idCtrlOnly struct {
	t   *testing.T
	out string
}

func (x idCtrlOnly) Run(_ context.Context, args ...string) precondition.Command {
	if strings.Join(args[:2], " ") != "nvme id-ctrl" {
		x.t.Errorf("ran %v before the gate decided", args)
		return precondition.Command{Args: args, Exit: 1}
	}
	return precondition.Command{Args: args, Output: x.out}
}

// On a controller with two namespaces, a sanitize of one erases both: the
// run's purge is refused unless --destroy-data names the other one too
// (device.ErrUnsafe: exit 4), and then records both.
func TestControllerWidePurgeGate(t *testing.T) {
	fs := device.FS{Root: "../device/testdata/nvme2ns"}
	idctrl, err := os.ReadFile(filepath.Join("..", "precondition", "testdata", "tools", "nvme-id-ctrl.json"))
	require.NoError(t, err)
	tp, err := Check(Options{Specs: []string{"/dev/nvme1n1"}, Engine: "native", FS: fs})
	require.NoError(t, err)
	require.Equal(t, Local, tp.Kind)

	pg := tp.purger(precondition.NVMeSanitize, []string{"S7EVNJ0W100001"}, nil, nil)
	pg.Exec = idCtrlOnly{t, string(idctrl)}
	_, err = pg.Resolve(context.Background())
	require.ErrorIs(t, err, device.ErrUnsafe) // exit 4
	assert.Contains(t, err.Error(), "erases every namespace of controller nvme1, not only the target: also /dev/nvme1n2")
	assert.Contains(t, err.Error(), "--destroy-data /dev/nvme1n2")

	pg = tp.purger(precondition.NVMeSanitize, []string{"S7EVNJ0W100001", "/dev/nvme1n2"}, nil, nil)
	pg.Exec = idCtrlOnly{t, string(idctrl)}
	ch, err := pg.Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"/dev/nvme1n1", "/dev/nvme1n2"}, ch.Erased)

	// auto takes the format of the target's namespace alone (FNA 4) and
	// needs nothing more.
	pg = tp.purger(precondition.Auto, []string{"S7EVNJ0W100001"}, nil, nil)
	pg.Exec = idCtrlOnly{t, string(idctrl)}
	ch, err = pg.Resolve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, precondition.NVMeFormat, ch.Method)
	assert.Empty(t, ch.Erased)
}

// toolFake answers the probes (nvme id-ctrl, hdparm -I) with captured
// outputs and every other command with success, recording all: what a
// purge would have done to the device is in calls.
type toolFake struct {
	t     *testing.T
	calls []string
}

func (x *toolFake) Run(_ context.Context, args ...string) precondition.Command {
	cmd := strings.Join(args, " ")
	x.calls = append(x.calls, cmd)
	tool := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "precondition", "testdata", "tools", name))
		require.NoError(x.t, err)
		return string(b)
	}
	switch {
	case strings.HasPrefix(cmd, "nvme id-ctrl "):
		return precondition.Command{Args: args, Output: tool("nvme-id-ctrl.json")}
	case strings.HasPrefix(cmd, "nvme sanitize-log "):
		return precondition.Command{Args: args, Output: tool("nvme-sanitize-log-done.json")}
	case strings.HasPrefix(cmd, "hdparm -I "):
		return precondition.Command{Args: args, Output: tool("hdparm-I-ready.txt")}
	}
	return precondition.Command{Args: args}
}

// erasing is the first command of calls that erases a device, "" if none.
func erasing(calls []string) string {
	for _, c := range calls {
		for _, p := range []string{"nvme sanitize ", "nvme format ", "hdparm --yes-i-know-what-i-am-doing", "hdparm --user-master",
			"sg_sanitize", "sg_format"} {
			if strings.HasPrefix(c, p) {
				return c
			}
		}
	}
	return ""
}

// A purge whose scope is larger than its partition target (the namespace,
// the controller, the whole disk) gates every device in that scope with
// the target's rules; on a partition, unless its disk is named, only the
// substitutes that stay in the partition are offered. Reproductions of
// issue 19 on the fixtures: a sanitize of the controller for a partition
// of its second namespace, a format of the namespace for auto, and an ATA
// secure erase of a disk whose other partition holds a mounted LVM
// volume. The gate refuses (device.ErrUnsafe: exit 4) before any command
// but a probe runs.
func TestPartitionPurgeGate(t *testing.T) {
	nvme := device.FS{Root: "../device/testdata/nvme2ns"}
	sata := device.FS{Root: "../device/testdata/sata2part"}
	for _, tc := range []struct {
		name    string
		fs      device.FS
		target  string
		destroy []string
		method  string
		want    string // the method chosen; "" refused with every part of err
		err     []string
	}{
		{"sanitize of the controller for a partition", nvme, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1"}, precondition.NVMeSanitize, "",
			[]string{"erases the whole disk /dev/nvme1n2, not only the partition", "every namespace of controller nvme1, not only the target: also /dev/nvme1n1",
				"--destroy-data /dev/nvme1n2 --destroy-data /dev/nvme1n1", "--purge discard or --purge zero-fill"}},
		{"sanitize, the partition's namespace named, not the other", nvme, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1", "/dev/nvme1n2"},
			precondition.NVMeSanitize, "", []string{"also /dev/nvme1n1", "--destroy-data /dev/nvme1n1"}},
		{"format of the namespace for a partition", nvme, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1"}, precondition.NVMeFormat, "",
			[]string{"erases the whole disk /dev/nvme1n2, not only the partition"}},
		{"auto on a partition: discard, in the partition", nvme, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1"}, precondition.Auto, precondition.Discard, nil},
		{"auto on a partition whose namespace is named: its format", nvme, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1", "/dev/nvme1n2"},
			precondition.Auto, precondition.NVMeFormat, nil},
		{"auto on a SATA partition: discard, in the partition", sata, "/dev/sdc1", []string{"/dev/sdc1"}, precondition.Auto, precondition.Discard, nil},
		{"auto on a SATA partition, disk named but in use: discard", sata, "/dev/sdc1", []string{"/dev/sdc1", "/dev/sdc"},
			precondition.Auto, precondition.Discard, nil},
		{"secure erase of a SATA disk in use", sata, "/dev/sdc1", []string{"/dev/sdc1", "/dev/sdc"}, precondition.ATASecureErase, "",
			[]string{"refusing", "erases the whole disk /dev/sdc, not only the partition", "in use: /dev/sdc (it is in use by dm-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Check(Options{Specs: []string{tc.target}, Engine: "native", FS: tc.fs, Gate: true, DestroyData: tc.destroy})
			require.NoError(t, err, "the partition alone is free and named")
			method, err := tp.ChoosePurge(tc.method)
			require.NoError(t, err)
			x := &toolFake{t: t}
			pg := tp.purger(method, tc.destroy, nil, nil)
			pg.Exec = x
			ch, err := pg.Resolve(context.Background()) // the check before the run directory is made
			if tc.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, ch.Method)
				assert.Empty(t, erasing(x.calls), "only probes run before the gate decides")
				return
			}
			require.ErrorIs(t, err, device.ErrUnsafe, "exit 4")
			for _, part := range tc.err {
				assert.ErrorContains(t, err, part)
			}
			// And the purge itself, as the run would start it.
			_, err = pg.Purge(context.Background())
			require.ErrorIs(t, err, device.ErrUnsafe)
			assert.Empty(t, erasing(x.calls), "nothing was erased")
		})
	}
}

// A serial confirms only a device whose serial is its own: the
// controller's serial (printed for nvme1n1 before) names none of its
// namespaces, and a partition is named by its path alone (issue 19).
func TestSerialConfirmsItsOwnDeviceOnly(t *testing.T) {
	fs := device.FS{Root: "../device/testdata/nvme2ns"}
	for _, target := range []string{"/dev/nvme1n1", "/dev/nvme1n2", "/dev/nvme1n2p1"} {
		_, err := Check(Options{Specs: []string{target}, Engine: "native", FS: fs, Gate: true, DestroyData: []string{"S7EVNJ0W100001"}})
		require.ErrorIs(t, err, device.ErrUnsafe, "%s: exit 4", target)
		assert.ErrorContains(t, err, "confirm with --destroy-data "+target)
		_, err = Check(Options{Specs: []string{target}, Engine: "native", FS: fs, Gate: true, DestroyData: []string{target}})
		assert.NoError(t, err, target)
	}
	_, err := Check(Options{Specs: []string{"/dev/nvme2n1"}, Engine: "native", FS: fs, Gate: true, DestroyData: []string{"PHAB123400A1"}})
	assert.NoError(t, err, "a namespace alone on its controller: the serial is its own")
}
