package targets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/precondition"
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
