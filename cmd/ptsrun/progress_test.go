package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run's result is stdout's, its progress stderr's: `run … 2>/dev/null`
// prints the summary. With --json every line of stdout is an event, each
// with the run's time left as plan estimates it (the whole run's at the
// start, nothing at the end), then the summary.
func TestRunOutputs(t *testing.T) {
	args := []string{"run", "--target", "sim", "--tests", "lat", "--cell-time", "10s"}
	dir := filepath.Join(t.TempDir(), "text")
	code, stdout, stderr := ptsrun(append(args, "--out", dir)...)
	require.Contains(t, []int{0, 3}, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "Run "+dir+": "), "stdout starts with the summary: %q", stdout)
	assert.True(t, strings.HasSuffix(stderr, "\n\n"), "the progress ends with an empty line, before the summary on a terminal")
	assert.Contains(t, stdout, "Results: "+filepath.Join(dir, "results.json"))
	assert.Contains(t, stderr, "[1/1] Latency: started", "progress is stderr's")
	assert.NotContains(t, stderr, "Results: ")

	dir = filepath.Join(t.TempDir(), "json")
	code, stdout, stderr = ptsrun(append(args, "--out", dir, "--json")...)
	require.Contains(t, []int{0, 3}, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Greater(t, len(lines), 3)
	var events []map[string]any
	for _, l := range lines {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &ev), l)
		events = append(events, ev)
	}
	summary := events[len(events)-1]
	assert.Equal(t, "summary", summary["type"])
	events = events[:len(events)-1]
	for _, ev := range events {
		require.Contains(t, ev, "run_left_s", ev["type"])
		require.Contains(t, ev, "run_left_max_s", ev["type"])
		assert.LessOrEqual(t, ev["run_left_s"], ev["run_left_max_s"], ev["type"])
	}
	first, last := events[0], events[len(events)-1]
	assert.Equal(t, "start", first["type"])
	assert.Positive(t, first["run_left_max_s"], "the whole run is ahead")
	assert.Equal(t, "end", last["type"])
	assert.Zero(t, last["run_left_max_s"])
}

// Off a terminal, a test over time prints a line at least once a period
// (a minute; --progress-period, hidden, for tests): its sample, its
// fills, its IOPS and the time left.
func TestTimelineLogLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := ptsrun("run", "--target", "sim", "--tests", "wsat", "--wsat-time", "10m", "--out", dir,
		"--progress-period", "1ns")
	require.Contains(t, []int{0, 3}, code, stderr)
	sample := regexp.MustCompile(`(?m)^\[1/1\] Write Saturation: sample (\d+)/10, TGBW [0-9.]+ GB \([0-9.]+ drive fills\), \d+ IOPS, ` +
		`stage at most .* left, run at most .* left$`)
	assert.Len(t, sample.FindAllString(stderr, -1), 10, "a line a sample at so short a period:\n%s", stderr)
	assert.Contains(t, stdout, "Write Saturation", "the summary")
}
