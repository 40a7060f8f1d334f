package device

import (
	"strings"
	"unicode"
)

// DMI is the platform as its firmware names it (SMBIOS, read through
// /sys/class/dmi/id; PTS §5.1 asks for the motherboard). A value the
// firmware left as a placeholder is dropped: empty means not known.
type DMI struct {
	BoardVendor  string `json:"board_vendor,omitempty"`  // SMBIOS type 2
	BoardName    string `json:"board_name,omitempty"`    // type 2
	BoardVersion string `json:"board_version,omitempty"` // type 2
	SysVendor    string `json:"sys_vendor,omitempty"`    // type 1: the system the board is in
	ProductName  string `json:"product_name,omitempty"`  // type 1
	BIOSVersion  string `json:"bios_version,omitempty"`  // type 0
}

// ProbeDMI reads the platform's DMI names. Files that are missing or
// unreadable (not Linux, no SMBIOS, some ARM boards) leave their field empty.
func (fs FS) ProbeDMI() DMI {
	r := func(name string) string { return cleanDMI(fs.readRaw("sys/class/dmi/id/" + name)) }
	return DMI{BoardVendor: r("board_vendor"), BoardName: r("board_name"), BoardVersion: r("board_version"),
		SysVendor: r("sys_vendor"), ProductName: r("product_name"), BIOSVersion: r("bios_version")}
}

// placeholders are values board vendors ship in SMBIOS instead of a name,
// compared lower case without spaces and punctuation.
var placeholders = map[string]bool{
	"defaultstring": true, "tobefilledbyoem": true, "tobefilledbyoemtobefilledbyoem": true,
	"systemproductname": true, "systemmanufacturer": true, "systemversion": true,
	"baseboardproductname": true, "baseboardmanufacturer": true, "baseboardversion": true,
	"notspecified": true, "notapplicable": true, "notavailable": true, "none": true, "na": true,
	"unknown": true, "oem": true, "invalid": true, "empty": true, "undefined": true,
	"123456789": true, "0123456789": true, "type2boardproductname1": true, "type1productconfigid": true,
}

// cleanDMI reads one DMI file's content: trimmed, or "" for a placeholder,
// a run of one character ("00000000", "xxxxx") or bytes that are not text.
func cleanDMI(b []byte) string {
	s := strings.TrimSpace(string(b))
	var key strings.Builder
	for _, r := range s {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return ""
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			key.WriteRune(unicode.ToLower(r))
		}
	}
	k := key.String()
	if k == "" || placeholders[k] || strings.Count(k, k[:1]) == len(k) && len(k) > 1 {
		return ""
	}
	return s
}

// Motherboard names the board for the report header: vendor, name and
// revision, the system it is in when that says more, and the BIOS
// version; "" when DMI names neither a board nor a system.
func (d DMI) Motherboard() string {
	board := join(d.BoardVendor, d.BoardName)
	if board != "" && d.BoardVersion != "" {
		v := d.BoardVersion
		if !strings.HasPrefix(strings.ToLower(v), "rev") {
			v = "rev. " + v
		}
		board += " (" + v + ")"
	}
	system := join(d.SysVendor, d.ProductName)
	var parts []string
	switch {
	case board != "" && system != "" && !strings.Contains(system, d.BoardName):
		parts = append(parts, board+" in "+system)
	case board != "":
		parts = append(parts, board)
	case system != "":
		// VMs and some servers name the system but not its board.
		parts = append(parts, system+" (system; board not named)")
	default:
		return ""
	}
	if d.BIOSVersion != "" {
		parts = append(parts, "BIOS "+d.BIOSVersion)
	}
	return strings.Join(parts, ", ")
}

// join writes vendor and name, once when the name starts with the vendor.
func join(vendor, name string) string {
	switch {
	case vendor == "":
		return name
	case name == "":
		return vendor
	case strings.HasPrefix(strings.ToLower(name), strings.ToLower(vendor)):
		return name
	}
	return vendor + " " + name
}
