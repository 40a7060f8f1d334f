package device

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Fact is one thing known about a device under test beyond its name, and
// who says so: the device (Source names the page it came from) or the
// operator (--dut-note). PTS §5.1 asks for the NAND type and form factor,
// which most devices do not report.
type Fact struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Keys of the facts the report header has rows for.
const (
	FactNAND       = "NAND type"
	FactFormFactor = "Form factor"
	FactMedium     = "Medium"
)

// SourceOperator marks a fact the operator stated.
const SourceOperator = "stated by the operator"

// factAliases map what an operator may write as a key (lower case, letters
// and digits only) to the header's row.
var factAliases = map[string]string{
	"nand": FactNAND, "nandtype": FactNAND, "flash": FactNAND, "flashtype": FactNAND, "media": FactNAND, "mediatype": FactNAND,
	"formfactor": FactFormFactor, "ff": FactFormFactor,
	"medium": FactMedium,
}

// CanonicalKey is the row a key fills: "nand" and "NAND type" are one
// row; a key the header has no row for stays as written.
func CanonicalKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	if c, ok := factAliases[b.String()]; ok {
		return c
	}
	return strings.TrimSpace(k)
}

// Limits on an operator's note, so that it fits the report header.
const (
	maxNoteKey   = 32
	maxNoteValue = 80
)

// ParseNote reads one --dut-note KEY=VALUE.
func ParseNote(s string) (Fact, error) {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	switch {
	case !ok || k == "" || v == "":
		return Fact{}, fmt.Errorf("--dut-note %q: want KEY=VALUE, such as \"NAND=TLC 176L\" or \"Form factor=U.2\"", s)
	case len(k) > maxNoteKey || len(v) > maxNoteValue:
		return Fact{}, fmt.Errorf("--dut-note %q: the key may have %d bytes and the value %d, to fit the report header", s, maxNoteKey, maxNoteValue)
	}
	if err := CheckControl(s); err != nil {
		return Fact{}, fmt.Errorf("--dut-note %q: %w", s, err)
	}
	return Fact{Key: CanonicalKey(k), Value: v, Source: SourceOperator}, nil
}

// ParseNotes reads every --dut-note; a key given twice is refused.
func ParseNotes(notes []string) ([]Fact, error) {
	var out []Fact
	seen := map[string]string{}
	for _, s := range notes {
		f, err := ParseNote(s)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[f.Key]; ok {
			return nil, fmt.Errorf("--dut-note %q: %s is already given (%q)", s, f.Key, prev)
		}
		seen[f.Key] = s
		out = append(out, f)
	}
	return out, nil
}

// vpdB1 is the Block Device Characteristics VPD page (B1h, SBC-4 §6.6.2).
// For ATA drives libata builds it from IDENTIFY DEVICE words 217 and 168.
type vpdB1 struct {
	Rotation   int // MEDIUM ROTATION RATE, bytes 4–5: 0 not reported, 1 non-rotating (solid state), 401h–FFFEh rpm
	FormFactor int // NOMINAL FORM FACTOR, byte 7 bits 3:0: 0 not reported, 1 5.25", 2 3.5", 3 2.5", 4 1.8", 5 under 1.8"
}

var errNotB1 = errors.New("not a Block Device Characteristics VPD page (B1h)")

// parseVPDB1 reads the page as sysfs gives it (vpd_pgb1): a 4-byte header
// (page code in byte 1, page length in bytes 2–3), then the page.
func parseVPDB1(b []byte) (vpdB1, error) {
	if len(b) < 4 || b[1] != 0xb1 {
		return vpdB1{}, errNotB1
	}
	if n := int(b[2])<<8 | int(b[3]); n < 4 || len(b) < 8 {
		return vpdB1{}, fmt.Errorf("%w: %d bytes, page length %d; want at least 8 and 4", errNotB1, len(b), n)
	}
	return vpdB1{Rotation: int(b[4])<<8 | int(b[5]), FormFactor: int(b[7] & 0x0f)}, nil
}

var formFactors = map[int]string{1: `5.25"`, 2: `3.5"`, 3: `2.5"`, 4: `1.8"`, 5: `under 1.8"`}

// facts are what the page reports; values it leaves unreported or
// reserved are left out.
func (v vpdB1) facts() []Fact {
	const src = "VPD B1h"
	var out []Fact
	if ff, ok := formFactors[v.FormFactor]; ok {
		out = append(out, Fact{Key: FactFormFactor, Value: ff, Source: src})
	}
	switch {
	case v.Rotation == 1:
		out = append(out, Fact{Key: FactMedium, Value: "solid state (non-rotating)", Source: src})
	case v.Rotation >= 0x401 && v.Rotation <= 0xfffe:
		out = append(out, Fact{Key: FactMedium, Value: fmt.Sprintf("rotating, %d rpm", v.Rotation), Source: src})
	}
	return out
}
