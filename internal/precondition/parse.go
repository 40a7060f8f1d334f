package precondition

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// NVMeController is what `nvme id-ctrl -o json` says that purges and the
// write cache need.
type NVMeController struct {
	Model, Serial, Firmware string
	OACS                    uint64 // bit 1: Format NVM supported
	FNA                     uint64 // bit 2: cryptographic erase supported as part of a format
	SANICAP                 uint64 // bit 0 crypto erase, bit 1 block erase, bit 2 overwrite
	VWC                     uint64 // bit 0: a volatile write cache is present
}

// Capabilities.
func (c NVMeController) Format() bool         { return c.OACS&0x2 != 0 }
func (c NVMeController) FormatCrypto() bool   { return c.FNA&0x4 != 0 }
func (c NVMeController) SanitizeCrypto() bool { return c.SANICAP&0x1 != 0 }
func (c NVMeController) SanitizeBlock() bool  { return c.SANICAP&0x2 != 0 }
func (c NVMeController) WriteCache() bool     { return c.VWC&0x1 != 0 }

// ParseNVMeIDCtrl reads `nvme id-ctrl DEV -o json`.
func ParseNVMeIDCtrl(out string) (NVMeController, error) {
	var raw map[string]any
	if err := json.Unmarshal([]byte(jsonPart(out)), &raw); err != nil {
		return NVMeController{}, fmt.Errorf("nvme id-ctrl output is not JSON: %w", err)
	}
	num := func(k string) uint64 {
		switch v := raw[k].(type) {
		case float64:
			return uint64(v)
		case string:
			n, _ := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 64)
			return n
		}
		return 0
	}
	str := func(k string) string { s, _ := raw[k].(string); return strings.TrimSpace(s) }
	if _, ok := raw["sanicap"]; !ok {
		return NVMeController{}, fmt.Errorf("nvme id-ctrl output has no sanicap field")
	}
	return NVMeController{Model: str("mn"), Serial: str("sn"), Firmware: str("fr"),
		OACS: num("oacs"), FNA: num("fna"), SANICAP: num("sanicap"), VWC: num("vwc")}, nil
}

// jsonPart cuts any text before the first brace.
func jsonPart(s string) string {
	if i := strings.IndexByte(s, '{'); i > 0 {
		return s[i:]
	}
	return s
}

// SanitizeState is the NVMe sanitize status log (log page 81h).
type SanitizeState struct {
	Status   int // SSTAT bits 2:0: 0 never, 1 done, 2 in progress, 3 failed, 4 done without deallocation
	Progress int // SPROG, in 1/65536 of the operation
	// GlobalErased is SSTAT bit 8: no user data has been written since the
	// last sanitize completed.
	GlobalErased bool
}

// NVMeNamespace is what `nvme id-ns -o json` says that a purge check needs.
type NVMeNamespace struct {
	DLFEAT uint64 // byte 33, bits 2:0: what deallocated blocks read as (1 zeros, 2 0xFF, 0 not said)
}

// DeallocatedPattern is the byte deallocated blocks read as, or −1 when the
// namespace does not say.
func (n NVMeNamespace) DeallocatedPattern() int {
	switch n.DLFEAT & 0x7 {
	case 1:
		return 0
	case 2:
		return 0xff
	}
	return -1
}

// ParseNVMeIDNS reads `nvme id-ns DEV -o json`.
func ParseNVMeIDNS(out string) (NVMeNamespace, error) {
	var raw map[string]any
	if err := json.Unmarshal([]byte(jsonPart(out)), &raw); err != nil {
		return NVMeNamespace{}, fmt.Errorf("nvme id-ns output is not JSON: %w", err)
	}
	v, ok := raw["dlfeat"].(float64)
	if !ok {
		return NVMeNamespace{}, fmt.Errorf("nvme id-ns output has no dlfeat field")
	}
	return NVMeNamespace{DLFEAT: uint64(v)}, nil
}

// Sanitize statuses.
const (
	SanitizeNever      = 0
	SanitizeDone       = 1
	SanitizeInProgress = 2
	SanitizeFailed     = 3
	SanitizeDoneNoDeal = 4
)

var leadingNumber = regexp.MustCompile(`\((\d+)\)`)

// ParseSanitizeLog reads `nvme sanitize-log DEV -o json` (nvme-cli 1.x and 2.x
// shapes) or its text form ("Sanitize Status (SSTAT) : 0x101").
func ParseSanitizeLog(out string) (SanitizeState, error) {
	if strings.Contains(out, "{") {
		var raw map[string]map[string]any
		if err := json.Unmarshal([]byte(jsonPart(out)), &raw); err != nil {
			return SanitizeState{}, fmt.Errorf("nvme sanitize-log output is not JSON: %w", err)
		}
		for _, dev := range raw {
			st := SanitizeState{Status: -1}
			if p, ok := dev["sprog"].(float64); ok {
				st.Progress = int(p)
			}
			switch s := dev["sstat"].(type) {
			case float64:
				st.Status = int(s) & 0x7
				st.GlobalErased = int(s)&0x100 != 0
			case map[string]any:
				if g, ok := s["global_erased"].(float64); ok {
					st.GlobalErased = g == 1
				}
				// "status": "(1) The most recent sanitize operation completed
				// successfully"; some versions use the text as the key.
				for k, v := range s {
					for _, text := range []string{k, fmt.Sprint(v)} {
						if m := leadingNumber.FindStringSubmatch(text); m != nil {
							st.Status, _ = strconv.Atoi(m[1])
						}
					}
				}
			}
			if st.Status < 0 {
				return st, fmt.Errorf("nvme sanitize-log output has no sanitize status")
			}
			return st, nil
		}
		return SanitizeState{}, fmt.Errorf("nvme sanitize-log output names no device")
	}
	st := SanitizeState{Status: -1}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Fields(strings.TrimSpace(v) + " ")[0]
		n, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), map[bool]int{true: 16, false: 10}[strings.HasPrefix(v, "0x")], 32)
		if err != nil {
			continue
		}
		switch {
		case strings.Contains(k, "SPROG"):
			st.Progress = int(n)
		case strings.Contains(k, "SSTAT"):
			st.Status = int(n) & 0x7
			st.GlobalErased = n&0x100 != 0
		}
	}
	if st.Status < 0 {
		return st, fmt.Errorf("no sanitize status in %q", firstLine(out))
	}
	return st, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// ATASecurity is the Security section of `hdparm -I`.
type ATASecurity struct {
	Supported, Enabled, Locked, Frozen bool
	Enhanced                           bool // enhanced erase supported
	SanitizeBlock, SanitizeCrypto      bool
	EraseMinutes                       int // estimated time for the erase hdparm reports
}

// ParseHdparmIdentify reads the security and sanitize facts of `hdparm -I`.
func ParseHdparmIdentify(out string) (ATASecurity, error) {
	var s ATASecurity
	i := strings.Index(out, "\nSecurity:")
	if i < 0 && !strings.HasPrefix(out, "Security:") {
		return s, fmt.Errorf("hdparm -I output has no Security section")
	}
	sec := out[i+1:]
	if j := strings.Index(sec, "\nLogical Unit WWN"); j > 0 {
		sec = sec[:j]
	} else if j := strings.Index(sec, "\nChecksum"); j > 0 {
		sec = sec[:j]
	}
	flag := func(word string) bool {
		for _, l := range strings.Split(sec, "\n") {
			f := strings.Fields(l)
			if len(f) >= 1 && f[len(f)-1] == word && (len(f) == 1 || f[0] != "not") {
				return true
			}
		}
		return false
	}
	s.Supported = flag("supported")
	s.Enabled = flag("enabled")
	s.Locked = flag("locked")
	s.Frozen = flag("frozen")
	s.Enhanced = strings.Contains(sec, "supported: enhanced erase")
	if m := regexp.MustCompile(`(\d+)min for (ENHANCED )?SECURITY ERASE`).FindAllStringSubmatch(sec, -1); m != nil {
		s.EraseMinutes, _ = strconv.Atoi(m[len(m)-1][1])
	}
	s.SanitizeBlock = strings.Contains(out, "BLOCK_ERASE_EXT")
	s.SanitizeCrypto = strings.Contains(out, "CRYPTO_SCRAMBLE_EXT")
	return s, nil
}

// ATASanitizeStatus reads `hdparm --sanitize-status`: whether the operation
// still runs, its progress, and whether it failed.
func ATASanitizeStatus(out string) (running bool, percent int, failed bool, err error) {
	if !strings.Contains(out, "State:") {
		return false, 0, false, fmt.Errorf("no sanitize state in %q", firstLine(out))
	}
	running = strings.Contains(out, "SD2") || strings.Contains(out, "In Process")
	if m := regexp.MustCompile(`Progress:\s+0x[0-9a-fA-F]+\s+\((\d+)%\)`).FindStringSubmatch(out); m != nil {
		percent, _ = strconv.Atoi(m[1])
	}
	failed = strings.Contains(out, "Completed With Error") || strings.Contains(out, "SD1")
	return running, percent, failed, nil
}

// ATASanitizeState is the state and last result lines of `hdparm
// --sanitize-status`, for the record.
func ATASanitizeState(out string) string {
	var parts []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "State:") || strings.HasPrefix(l, "Last Sanitize") {
			parts = append(parts, strings.Join(strings.Fields(l), " "))
		}
	}
	if len(parts) == 0 {
		return "idle"
	}
	return strings.Join(parts, ", ")
}

// ParseRZAT reads from `hdparm -I` whether the drive returns zeros after
// TRIM (ACS: RZAT, "Deterministic read ZEROs after TRIM").
func ParseRZAT(out string) bool {
	return strings.Contains(out, "Deterministic read ZEROs after TRIM")
}

var lbprz = regexp.MustCompile(`lbprz=(\d)`)

// ParseLBPRZ reads LBPRZ from `sg_readcap --long`: 1 when unmapped blocks
// read as zeros.
func ParseLBPRZ(out string) (int, bool) {
	m := lbprz.FindStringSubmatch(out)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

var senseKey = regexp.MustCompile(`Sense key:\s*([A-Za-z ]+?)\s*(\n|$|\[)`)
var additionalSense = regexp.MustCompile(`Additional sense:\s*(.+)`)

// SCSISenseKey reads the sense key `sg_requests` decoded ("No Sense",
// "Medium Error", …).
func SCSISenseKey(out string) (string, bool) {
	m := senseKey.FindStringSubmatch(out)
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(m[1]), true
}

// SCSIAdditionalSense is the additional sense text of `sg_requests`.
func SCSIAdditionalSense(out string) string {
	if m := additionalSense.FindStringSubmatch(out); m != nil {
		return strings.TrimSpace(m[1])
	}
	return "no additional sense"
}

var scsiProgress = regexp.MustCompile(`Progress indication:\s+([\d.]+)%`)

// SCSIProgress reads `sg_requests --progress`: the percentage done while a
// format or sanitize runs; ok is false when no operation reports progress.
func SCSIProgress(out string) (percent float64, ok bool) {
	m := scsiProgress.FindStringSubmatch(out)
	if m == nil {
		return 0, false
	}
	p, err := strconv.ParseFloat(m[1], 64)
	return p, err == nil
}

// ParseWriteCache reads the volatile write cache state from nvme get-feature
// 6, hdparm -W, or sdparm --get=WCE.
func ParseWriteCache(tool, out string) (bool, error) {
	switch tool {
	case "nvme":
		m := regexp.MustCompile(`[Cc]urrent value:\s*(0x[0-9a-fA-F]+)`).FindStringSubmatch(out)
		if m == nil {
			return false, fmt.Errorf("no current value in %q", firstLine(out))
		}
		v, _ := strconv.ParseUint(m[1][2:], 16, 32)
		return v&1 == 1, nil
	case "hdparm":
		m := regexp.MustCompile(`write-caching\s*=\s*(\d)`).FindStringSubmatch(out)
		if m == nil {
			return false, fmt.Errorf("no write-caching line in %q", firstLine(out))
		}
		return m[1] == "1", nil
	case "sdparm":
		m := regexp.MustCompile(`(?m)^\s*WCE\s+(\d)`).FindStringSubmatch(out)
		if m == nil {
			return false, fmt.Errorf("no WCE field in %q", firstLine(out))
		}
		return m[1] == "1", nil
	}
	return false, fmt.Errorf("unknown tool %s", tool)
}
