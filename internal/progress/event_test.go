package progress

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// run --json prints a telemetry record's readings in full, each figure
// with its source, not in the journal's compact form.
func TestEventTelemetryInFull(t *testing.T) {
	var rec pts.TelemetryRecord
	require.NoError(t, json.Unmarshal([]byte(`{"at":"round","readings":[{"device":"/dev/nvme0n1","sources":["nvme-cli"],
		"temperature_c":{"value":41,"source":"nvme-cli"},"media_errors":{"value":0,"source":"nvme-cli"}}]}`), &rec))
	var out bytes.Buffer
	p := &Display{out: &out}
	p.event(pts.Record{Type: pts.RecTelemetry, Stage: "iops", Telemetry: &rec}, pts.Position{})
	var ev struct {
		Type      string `json:"type"`
		Telemetry struct {
			At       string           `json:"at"`
			Readings []map[string]any `json:"readings"`
		} `json:"telemetry"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &ev), out.String())
	assert.Equal(t, pts.RecTelemetry, ev.Type)
	assert.Equal(t, pts.AtRound, ev.Telemetry.At)
	require.Len(t, ev.Telemetry.Readings, 1)
	assert.Equal(t, map[string]any{"value": 0.0, "source": "nvme-cli"}, ev.Telemetry.Readings[0]["media_errors"])
	assert.NotContains(t, ev.Telemetry.Readings[0], "source", "no reading-level source: that is the journal's form")
}
