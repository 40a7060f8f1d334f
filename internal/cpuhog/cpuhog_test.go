package cpuhog

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hogs are processes of their own that spin until stopped.
func TestHogsRunAndStop(t *testing.T) {
	h, err := Start(2)
	require.NoError(t, err)
	require.Equal(t, 2, h.Len())
	pids := make([]int, 0, 2)
	for _, p := range h.procs {
		pids = append(pids, p.Process.Pid)
		state, err := os.ReadFile("/proc/" + strconv.Itoa(p.Process.Pid) + "/stat")
		if err != nil {
			t.Skip("no /proc here")
		}
		// Field 3 is the state: R (running) or, between time slices, not Z.
		f := strings.Fields(string(state))
		require.Greater(t, len(f), 2)
		assert.NotEqual(t, "Z", f[2], "a hog is alive")
	}
	h.Stop()
	assert.Zero(t, h.Len())
	for _, pid := range pids {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		assert.True(t, os.IsNotExist(err), "hog %d is gone", pid)
	}
}
