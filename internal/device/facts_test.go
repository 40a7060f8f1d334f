package device

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// b1 is a Block Device Characteristics page as sysfs gives it.
func b1(rotation uint16, b7 byte) []byte {
	p := make([]byte, 64)
	p[1], p[3] = 0xb1, 0x3c
	p[4], p[5] = byte(rotation>>8), byte(rotation)
	p[7] = b7
	return p
}

func TestParseVPDB1(t *testing.T) {
	for _, tc := range []struct {
		name  string
		page  []byte
		want  []Fact
		isErr bool
	}{
		{"SSD 2.5 inch", b1(1, 0x03), []Fact{{FactFormFactor, `2.5"`, "VPD B1h"}, {FactMedium, "solid state (non-rotating)", "VPD B1h"}}, false},
		{"WABEREQ and WACEREQ bits do not change the form factor", b1(1, 0xf4), []Fact{{FactFormFactor, `1.8"`, "VPD B1h"}, {FactMedium, "solid state (non-rotating)", "VPD B1h"}}, false},
		{"5.25 inch", b1(0, 0x01), []Fact{{FactFormFactor, `5.25"`, "VPD B1h"}}, false},
		{"3.5 inch disk", b1(7200, 0x02), []Fact{{FactFormFactor, `3.5"`, "VPD B1h"}, {FactMedium, "rotating, 7200 rpm", "VPD B1h"}}, false},
		{"under 1.8 inch", b1(1, 0x05), []Fact{{FactFormFactor, `under 1.8"`, "VPD B1h"}, {FactMedium, "solid state (non-rotating)", "VPD B1h"}}, false},
		{"nothing reported", b1(0, 0), nil, false},
		{"reserved values", b1(0x0200, 0x0e), nil, false},
		{"short page of 8 bytes", []byte{0, 0xb1, 0, 4, 0, 1, 0, 3}, []Fact{{FactFormFactor, `2.5"`, "VPD B1h"}, {FactMedium, "solid state (non-rotating)", "VPD B1h"}}, false},
		{"another page", []byte{0, 0x80, 0, 4, 'a', 'b', 'c', 'd'}, nil, true},
		{"truncated", []byte{0, 0xb1, 0, 0x3c, 0}, nil, true},
		{"empty", nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseVPDB1(tc.page)
			if tc.isErr {
				assert.ErrorIs(t, err, errNotB1)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, v.facts())
		})
	}
}

func TestVPDB1FromSysfs(t *testing.T) {
	sda, err := fixture.Block("sda")
	require.NoError(t, err)
	assert.Equal(t, []Fact{{FactMedium, "solid state (non-rotating)", "VPD B1h"}}, sda.Facts, "libata's page: no form factor in IDENTIFY word 168")
	tg, err := fixture.Inspect(Spec{Raw: "/dev/sdb", Kind: KindBlock, Path: "/dev/sdb"})
	require.NoError(t, err)
	assert.Equal(t, []Fact{{FactFormFactor, `2.5"`, "VPD B1h"}, {FactMedium, "solid state (non-rotating)", "VPD B1h"}}, tg.Identity.Facts)
	nvme, err := fixture.Block("nvme0n1")
	require.NoError(t, err)
	assert.Empty(t, nvme.Facts, "NVMe Identify does not carry form factor or NAND type")
}

func TestParseNotes(t *testing.T) {
	got, err := ParseNotes([]string{"NAND=TLC 176L", "form-factor = U.2", "Endurance=1 DWPD"})
	require.NoError(t, err)
	assert.Equal(t, []Fact{{FactNAND, "TLC 176L", SourceOperator}, {FactFormFactor, "U.2", SourceOperator},
		{"Endurance", "1 DWPD", SourceOperator}}, got)
	for _, tc := range []struct{ in, err string }{
		{"NAND", "want KEY=VALUE"},
		{"=TLC", "want KEY=VALUE"},
		{"NAND=", "want KEY=VALUE"},
		{"NAND=" + strings.Repeat("x", 81), "to fit the report header"},
		{"NAND=TLC\x1b[2J", "control character"},
	} {
		_, err := ParseNotes([]string{tc.in})
		assert.ErrorContains(t, err, tc.err, "%q", tc.in)
	}
	_, err = ParseNotes([]string{"NAND=TLC", "nand type=QLC"})
	assert.ErrorContains(t, err, `NAND type is already given ("NAND=TLC")`)
}
