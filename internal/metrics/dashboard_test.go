package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrafanaDashboard: docs/grafana-ptsrun.json is valid JSON, and
// every metric its queries name is one a textfile may hold; it graphs
// IOPS, the time left and the steady-state distance.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana-ptsrun.json"))
	require.NoError(t, err)
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal(b, &d))
	name := regexp.MustCompile(`ptsrun_[a-z_]+`)
	var exprs []string
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			exprs = append(exprs, q.Expr)
		}
	}
	for _, v := range d.Templating.List {
		exprs = append(exprs, v.Definition)
	}
	var named []string
	for _, e := range exprs {
		ms := name.FindAllString(e, -1)
		assert.NotEmpty(t, ms, "%q names no ptsrun metric", e)
		for _, m := range ms {
			assert.Contains(t, Names(), m, "%q", e)
			named = append(named, m)
		}
	}
	for _, m := range []string{"ptsrun_iops", "ptsrun_time_left_min_seconds", "ptsrun_time_left_max_seconds",
		"ptsrun_steady_state_range_ratio", "ptsrun_steady_state_slope_excursion_ratio"} {
		assert.True(t, slices.Contains(named, m), "the dashboard graphs %s", m)
	}
}
