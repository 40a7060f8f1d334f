package pts

import (
	"encoding/json"
	"testing"

	"github.com/ptsrun/ptsrun/internal/telemetry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A telemetry record keeps its readings compactly in the journal, reads
// back what it wrote, and reads the whole form of older journals.
func TestTelemetryRecordJSON(t *testing.T) {
	var r telemetry.Reading
	require.NoError(t, json.Unmarshal([]byte(`{"device":"/dev/nvme0n1","sources":["nvme-cli","hwmon"],
		"temperature_c":{"value":41.85,"source":"hwmon"},"media_errors":{"value":0,"source":"nvme-cli"},
		"percent_used":{"value":3,"source":"nvme-cli"},"bytes_written":{"value":512000,"source":"nvme-cli"}}`), &r))
	rec := Record{Type: RecTelemetry, Stage: "iops", Telemetry: &TelemetryRecord{At: AtRound, Readings: []telemetry.Reading{r, r}, Notes: []string{"hwmon: no more"}}}

	b, err := json.Marshal(rec)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"source":"nvme-cli","device":"/dev/nvme0n1"`)
	assert.Contains(t, string(b), `"media_errors":0`)
	assert.Contains(t, string(b), `"temperature_c":{"value":41.85,"source":"hwmon"}`)
	var back Record
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, rec.Telemetry, back.Telemetry)

	// The whole form, as a journal before the compact one holds it.
	whole, err := json.Marshal(rec.Telemetry.Whole())
	require.NoError(t, err)
	assert.Contains(t, string(whole), `"media_errors":{"value":0,"source":"nvme-cli"}`)
	var old TelemetryRecord
	require.NoError(t, json.Unmarshal(whole, &old))
	assert.Equal(t, *rec.Telemetry, old)

	// Without readings (a run with no source).
	none := TelemetryRecord{At: AtRun, Unavailable: "not available: no source"}
	b, err = json.Marshal(none)
	require.NoError(t, err)
	assert.JSONEq(t, `{"at":"run","unavailable":"not available: no source"}`, string(b))
	var noneBack TelemetryRecord
	require.NoError(t, json.Unmarshal(b, &noneBack))
	assert.Equal(t, none, noneBack)

	require.Error(t, json.Unmarshal([]byte(`{"at":"round","readings":[{"device":"/dev/sda","temperature_c":40}]}`), &noneBack),
		"a bare figure without the reading's source")
}
