package pts

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestCellKey(t *testing.T) {
	for _, tc := range []struct {
		key          CellKey
		text         string
		label, words string
	}{
		{Key(engine.Random, 4*KiB, 65), "rnd-4k-65/35", "RND 4 KiB 65/35", "RND 4 KiB 65/35"},
		{Key(engine.Random, 512, 100), "rnd-0.5k-100/0", "RND 0.5 KiB 100/0", "RND 0.5 KiB read"},
		{Key(engine.Sequential, 1024*KiB, 0), "seq-1024k-0/100", "SEQ 1024 KiB 0/100", "SEQ 1024 KiB write"},
		{Named("RND 4 KiB 70/30 TC4/QD16"), "RND 4 KiB 70/30 TC4/QD16", "RND 4 KiB 70/30 TC4/QD16", "RND 4 KiB 70/30 TC4/QD16"},
	} {
		assert.Equal(t, tc.text, tc.key.String())
		assert.Equal(t, tc.label, tc.key.Label())
		assert.Equal(t, tc.words, tc.key.Words())
		b, err := json.Marshal(struct {
			K CellKey `json:"key"`
		}{tc.key})
		require.NoError(t, err)
		assert.JSONEq(t, `{"key":"`+tc.text+`"}`, string(b), "stored as it always was")
		var back struct {
			K CellKey `json:"key"`
		}
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tc.key, back.K, "and read back to the same key")
	}
	assert.Equal(t, Key(engine.Random, 4*KiB, 0), KeyOf(engine.Workload{Access: engine.Random, BlockSize: 4 * KiB, ReadPct: 0, TC: 4, QD: 32}))
	for _, bad := range []string{"rnd-4k", "xyz-4k-50/50", "rnd-4q-50/50", "rnd-4k-60/60", "rnd-4k-a/b"} {
		_, err := ParseCellKey(bad)
		assert.Error(t, err, bad)
	}
	assert.True(t, CellKey{}.IsZero())
	b, err := json.Marshal(Record{Type: RecStart})
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"key"`, "a record without a cell has no key")
}

// Every test's definition is complete, and the registry keeps the PTS order.
func TestDefinitions(t *testing.T) {
	var ids []TestID
	for _, td := range Tests {
		ids = append(ids, td.ID)
		require.NotNil(t, td.stages, td.ID)
		assert.NotEmpty(t, td.Tables, td.ID)
		if td.Summarize != nil { // a timeline or a sweep: no matrix of its own
			for _, tb := range td.Tables {
				assert.True(t, tb.Shape != ShapeMatrix && tb.Shape != ShapeCells && (tb.Shape != ShapeGrid || tb.Metric.Unit() != ""),
					"%s: table %s", td.ID, tb.Name)
			}
			continue
		}
		require.NotNil(t, td.Matrix, td.ID)
		require.NotNil(t, td.Tracking, td.ID)
		assert.True(t, len(td.Headlines) > 0 || len(td.EveryCell) > 0, td.ID)
		assert.Len(t, td.Loops, 2, td.ID)
		for _, tb := range td.Tables {
			assert.NotEmpty(t, tb.Metric.Unit(), "%s: table %s has a known metric", td.ID, tb.Name)
		}
	}
	// The PTS's tests in the order of its sections; a test added is one
	// file, placed by its own order.
	assert.True(t, slices.IsSortedFunc(Tests, func(a, b *TestDef) int { return a.order - b.order }))
	spec := []TestID{IOPS, TP, LAT, WSAT, HIR, XSR, ECW, DIRTH}
	assert.Equal(t, spec, slices.DeleteFunc(ids, func(id TestID) bool { return !slices.Contains(spec, id) }), "in the order of the spec's sections")
	assert.Same(t, CustomTest, Def(Custom))
	_, err := LookupTest(Custom)
	assert.Error(t, err, "custom is not a PTS test one can ask for")
	td, tb, ok := LookupTable("lat_p99_999_ms")
	require.True(t, ok)
	assert.Equal(t, LAT, td.ID)
	assert.Equal(t, MetricLatP99999, tb.Metric)
}

func TestMetrics(t *testing.T) {
	for _, tc := range []struct {
		m     Metric
		unit  string
		lower bool
		v     float64
		shown string
	}{
		{MetricIOPS, "IOPS", false, 711276.4, "711,276"},
		{MetricMBps, "MB/s", false, 6622.3, "6,622"},
		{MetricMBps, "MB/s", false, 42.25, "42.2"},
		{MetricLatMean, "ms", true, 0.0835, "0.0835"},
		{MetricLatP99999, "ms", true, 12.34, "12.3"},
	} {
		assert.Equal(t, tc.unit, tc.m.Unit(), tc.m)
		assert.Equal(t, tc.lower, tc.m.LowerIsBetter(), tc.m)
		assert.Equal(t, tc.shown, tc.m.Format(tc.v), tc.m)
	}
}
