package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A value a flag cannot take is refused in one line that names the flag,
// the value and what the flag takes; a duration says the unit it lacks.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"cell time without unit", []string{"plan", "--target", "sim", "--cell-time", "5"}, `--cell-time "5": a duration needs a unit: 5s, 1m, 2h30m`},
		{"cell time not a duration", []string{"plan", "--target", "sim", "--cell-time", "5x"}, `--cell-time "5x": not a duration`},
		{"workload time without unit", []string{"workload", "--target", "sim", "--time", "30"}, `--time "30": a duration needs a unit`},
		{"workload ramp without unit", []string{"workload", "--target", "sim", "--ramp=10"}, `--ramp "10": a duration needs a unit`},
		{"test parameter without unit", []string{"plan", "--target", "sim", "--tests", "wsat", "--wsat-time", "24"}, `--wsat-time 24: a duration needs a unit: 5s, 1m, 2h30m`},
		{"xsr group without unit", []string{"plan", "--target", "sim", "--tests", "xsr", "--xsr-groups", "8h,6,8h"}, `--xsr-groups 8h,6,8h: "6": a duration needs a unit`},
		{"whole number", []string{"plan", "--target", "sim", "--tc", "four"}, `--tc "four": not a whole number`},
		{"number", []string{"ss", "--max-range", "a fifth", "-"}, `--max-range "a fifth": not a number`},
		{"mistyped flag", []string{"plan", "--targt", "sim"}, `Did you mean "--target"?`},
		{"mistyped flag of a subcommand", []string{"import", "fio", "--ot", "x", "f.json"}, `Did you mean "--out"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := ptsrun(tc.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
			assert.Empty(t, stdout)
		})
	}
}
