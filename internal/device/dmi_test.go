package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCleanDMI(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"Supermicro\n", "Supermicro"},
		{"  ASUSTeK COMPUTER INC.  \n", "ASUSTeK COMPUTER INC."},
		{"Rev 1.xx\n", "Rev 1.xx"},
		{"1\n", "1"},
		{"", ""},
		{"\n", ""},
		{"To Be Filled By O.E.M.\n", ""},
		{"To be filled by O.E.M.", ""},
		{"Default string\n", ""},
		{"Default String", ""},
		{"System Product Name", ""},
		{"System manufacturer", ""},
		{"System Version", ""},
		{"Not Specified", ""},
		{"N/A", ""},
		{"None", ""},
		{"0123456789", ""},
		{"Type2 - Board Product Name1", ""},
		{"00000000", ""},
		{"xxxxx", ""},
		{"....", ""},
		{"\xff\xff\xff\xff", ""},
		{"Board\x01", ""},
	} {
		assert.Equal(t, tc.want, cleanDMI([]byte(tc.in)), "%q", tc.in)
	}
}

func TestProbeDMI(t *testing.T) {
	h := FS{Root: "testdata/host"}.ProbeHost("9.9")
	assert.Equal(t, DMI{BoardVendor: "Supermicro", BoardName: "H12SSL-i", BoardVersion: "1.02", SysVendor: "Supermicro",
		ProductName: "AS -1114S-WN10RT", BIOSVersion: "2.4"}, h.DMI)
	assert.Equal(t, "Supermicro H12SSL-i (rev. 1.02) in Supermicro AS -1114S-WN10RT, BIOS 2.4", h.DMI.Motherboard())

	oem := FS{Root: "testdata/host-oem"}.ProbeDMI()
	assert.Equal(t, DMI{BIOSVersion: "P2.10"}, oem, "placeholders are not names")
	assert.Empty(t, oem.Motherboard(), "a BIOS version alone names no board")

	assert.Equal(t, DMI{}, FS{Root: t.TempDir()}.ProbeDMI(), "no DMI (not Linux, no SMBIOS, unreadable)")
}

func TestMotherboard(t *testing.T) {
	for _, tc := range []struct {
		d    DMI
		want string
	}{
		{DMI{BoardVendor: "ASUSTeK COMPUTER INC.", BoardName: "PRIME X570-PRO", BoardVersion: "Rev X.0x", BIOSVersion: "4408"},
			"ASUSTeK COMPUTER INC. PRIME X570-PRO (Rev X.0x), BIOS 4408"},
		{DMI{BoardVendor: "Dell Inc.", BoardName: "0JMK61", BoardVersion: "A01", SysVendor: "Dell Inc.", ProductName: "PowerEdge R750"},
			"Dell Inc. 0JMK61 (rev. A01) in Dell Inc. PowerEdge R750"},
		{DMI{BoardVendor: "LENOVO", BoardName: "LENOVO 20XW"}, "LENOVO 20XW"},
		{DMI{SysVendor: "QEMU", ProductName: "Standard PC (Q35 + ICH9, 2009)", BIOSVersion: "1.16.2-debian-1.16.2-1"},
			"QEMU Standard PC (Q35 + ICH9, 2009) (system; board not named), BIOS 1.16.2-debian-1.16.2-1"},
		{DMI{}, ""},
	} {
		assert.Equal(t, tc.want, tc.d.Motherboard())
	}
}
