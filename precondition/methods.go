package precondition

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/device"
)

// Dev is what a purge needs to know of one target.
type Dev struct {
	Path         string // /dev/nvme0n1, /dev/sda, or a file
	Kind         string // device.KindBlock or device.KindFile
	Interface    string // NVMe, SATA, SAS, SCSI, loop, virtio, dm, md, file
	Controller   string // NVMe: the controller node (/dev/nvme0)
	Capacity     int64
	LogicalBlock int64
	Discard      bool // takes discards (TRIM/UNMAP/Deallocate)
}

var nvmeNS = regexp.MustCompile(`^(nvme\d+)n\d+$`)

// DevOf describes a target for purging.
func DevOf(t device.Target) Dev {
	d := Dev{Path: t.Path, Kind: t.Kind, Capacity: t.Capacity, LogicalBlock: t.LogicalBlock, Interface: "file"}
	if b := t.Block; b != nil {
		d.Path = b.Path()
		d.Interface = b.Interface
		d.Discard = b.DiscardMax > 0
		if m := nvmeNS.FindStringSubmatch(b.Name); m != nil {
			d.Controller = "/dev/" + m[1]
		}
	} else if t.Kind == device.KindFile {
		d.Discard = true // a hole punched in the file
	}
	return d
}

// Purge methods besides auto, none and sim-format.
const (
	NVMeSanitize       = "nvme-sanitize"
	NVMeSanitizeCrypto = "nvme-sanitize-crypto"
	NVMeFormat         = "nvme-format"
	NVMeFormatCrypto   = "nvme-format-crypto"
	ATASanitize        = "ata-sanitize"
	ATASanitizeCrypto  = "ata-sanitize-crypto"
	ATASecureErase     = "ata-secure-erase"
	SCSISanitize       = "scsi-sanitize"
	SCSISanitizeCrypto = "scsi-sanitize-crypto"
	SCSIFormat         = "scsi-format"
	Discard            = "discard"
	ZeroFill           = "zero-fill"
)

// verification after a purge.
type verification int

const (
	expectZeros   verification = iota // every sampled block reads as zeros
	expectChanged                     // crypto erase: the samples read differently
)

// method is one purge method.
type method struct {
	name       string
	compliant  bool
	interfaces []string // "" for any
	about      string
	verify     verification
	probe      func(ctx context.Context, x Exec, d Dev, rec *recorder) (bool, string)
	run        func(ctx context.Context, p *Purger, d Dev, rec *recorder) error
}

// catalogue is every method, in the order auto tries them.
var catalogue = []method{
	{name: NVMeSanitize, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Sanitize, block erase (SANACT 2), polled to completion",
		probe: nvmeProbe(func(c NVMeController) bool { return c.SanitizeBlock() }, "sanitize block erase"), run: nvmeSanitize(2)},
	{name: NVMeSanitizeCrypto, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Sanitize, crypto erase (SANACT 4)", verify: expectChanged,
		probe: nvmeProbe(func(c NVMeController) bool { return c.SanitizeCrypto() }, "sanitize crypto erase"), run: nvmeSanitize(4)},
	{name: NVMeFormat, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Format NVM with user data erase (SES 1)",
		probe: nvmeProbe(func(c NVMeController) bool { return c.Format() }, "Format NVM"), run: nvmeFormat(1)},
	{name: NVMeFormatCrypto, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Format NVM with crypto erase (SES 2)", verify: expectChanged,
		probe: nvmeProbe(func(c NVMeController) bool { return c.Format() && c.FormatCrypto() }, "crypto erase in Format NVM"), run: nvmeFormat(2)},
	{name: ATASanitize, compliant: true, interfaces: []string{"SATA"}, about: "ATA SANITIZE BLOCK ERASE EXT, polled to completion",
		probe: ataProbe(func(s ATASecurity) (bool, string) { return s.SanitizeBlock, "no SANITIZE BLOCK ERASE EXT" }), run: ataSanitize("--sanitize-block-erase")},
	{name: ATASanitizeCrypto, compliant: true, interfaces: []string{"SATA"}, about: "ATA SANITIZE CRYPTO SCRAMBLE EXT", verify: expectChanged,
		probe: ataProbe(func(s ATASecurity) (bool, string) { return s.SanitizeCrypto, "no SANITIZE CRYPTO SCRAMBLE EXT" }), run: ataSanitize("--sanitize-crypto-scramble")},
	{name: ATASecureErase, compliant: true, interfaces: []string{"SATA"}, about: "ATA SECURITY ERASE UNIT (enhanced when supported) with a temporary password",
		probe: ataProbe(secureEraseReady), run: ataSecureErase},
	{name: SCSISanitize, compliant: true, interfaces: []string{"SAS", "SCSI"}, about: "SCSI SANITIZE, block erase",
		probe: scsiProbe, run: scsiRun("sg_sanitize", "--block", "--quick", "--early")},
	{name: SCSISanitizeCrypto, compliant: true, interfaces: []string{"SAS", "SCSI"}, about: "SCSI SANITIZE, cryptographic erase", verify: expectChanged,
		probe: scsiProbe, run: scsiRun("sg_sanitize", "--crypto", "--quick", "--early")},
	{name: SCSIFormat, compliant: true, interfaces: []string{"SAS", "SCSI"}, about: "SCSI FORMAT UNIT",
		probe: func(context.Context, Exec, Dev, *recorder) (bool, string) { return true, "" }, run: scsiRun("sg_format", "--format", "--early")},
	{name: Discard, compliant: false, about: "discard (TRIM/UNMAP/Deallocate) of every block: a substitute, not a PTS purge",
		probe: func(_ context.Context, _ Exec, d Dev, _ *recorder) (bool, string) {
			return d.Discard, "the device takes no discards"
		}, run: discardRun},
	{name: ZeroFill, compliant: false, about: "zeros written over every block: a substitute, not a PTS purge",
		probe: func(context.Context, Exec, Dev, *recorder) (bool, string) { return true, "" }, run: zeroFillRun},
}

func lookup(name string) *method {
	for i := range catalogue {
		if catalogue[i].name == name {
			return &catalogue[i]
		}
	}
	return nil
}

func (m *method) applies(d Dev) bool {
	if len(m.interfaces) == 0 {
		return d.Kind == device.KindBlock || d.Kind == device.KindFile
	}
	for _, i := range m.interfaces {
		if i == d.Interface {
			return true
		}
	}
	return false
}

// Catalogue describes every method for the command line's help and plan.
func Catalogue() map[string]string {
	out := map[string]string{Auto: "the best compliant method the device supports, else discard, else zero-fill " +
		"(on fio servers: an fio trim job, else an fio zero-fill job)",
		None: "no purge (a deviation)", SimFormat: "the simulated drive's format"}
	for _, m := range catalogue {
		out[m.name] = m.about
	}
	return out
}

// recorder keeps every command a purge runs, for the journal.
type recorder struct {
	x    Exec
	cmds []Command
	log  func(string)
}

func (r *recorder) run(ctx context.Context, args ...string) Command {
	c := r.x.Run(ctx, args...)
	r.cmds = append(r.cmds, c)
	return c
}

func (r *recorder) note(args []string, out string, start time.Time) {
	r.cmds = append(r.cmds, Command{Args: args, Output: out, Duration: time.Since(start)})
}

func (r *recorder) progress(format string, a ...any) {
	if r.log != nil {
		r.log(fmt.Sprintf(format, a...))
	}
}

func failed(c Command) error {
	out := strings.TrimSpace(c.Output)
	if len(out) > 300 {
		out = out[:300] + "…"
	}
	return fmt.Errorf("%s exited %d: %s", strings.Join(c.Args, " "), c.Exit, out)
}

// --- NVMe ---

func nvmeProbe(ok func(NVMeController) bool, what string) func(context.Context, Exec, Dev, *recorder) (bool, string) {
	return func(ctx context.Context, _ Exec, d Dev, rec *recorder) (bool, string) {
		if d.Controller == "" {
			return false, "no NVMe controller for " + d.Path
		}
		c := rec.run(ctx, "nvme", "id-ctrl", d.Controller, "-o", "json")
		if !c.OK() {
			return false, failed(c).Error()
		}
		id, err := ParseNVMeIDCtrl(c.Output)
		if err != nil {
			return false, err.Error()
		}
		if !ok(id) {
			return false, fmt.Sprintf("%s does not support %s (sanicap %#x, oacs %#x, fna %#x)", d.Controller, what, id.SANICAP, id.OACS, id.FNA)
		}
		return true, ""
	}
}

func nvmeSanitize(action int) func(context.Context, *Purger, Dev, *recorder) error {
	return func(ctx context.Context, p *Purger, d Dev, rec *recorder) error {
		c := rec.run(ctx, "nvme", "sanitize", d.Controller, fmt.Sprintf("--sanact=%d", action))
		if !c.OK() {
			return failed(c)
		}
		// Sanitize runs in the background: the sanitize status log says when it ends.
		return p.poll(ctx, func() (bool, error) {
			c := rec.run(ctx, "nvme", "sanitize-log", d.Controller, "-o", "json")
			if !c.OK() {
				return false, failed(c)
			}
			st, err := ParseSanitizeLog(c.Output)
			if err != nil {
				return false, err
			}
			switch st.Status {
			case SanitizeInProgress:
				rec.progress("sanitize %s: %.1f %%", d.Controller, float64(st.Progress)*100/65536)
				return false, nil
			case SanitizeDone, SanitizeDoneNoDeal:
				return true, nil
			case SanitizeFailed:
				return false, fmt.Errorf("%s: the sanitize operation failed (sanitize status log)", d.Controller)
			}
			return false, fmt.Errorf("%s: sanitize status %d after the command", d.Controller, st.Status)
		})
	}
}

func nvmeFormat(ses int) func(context.Context, *Purger, Dev, *recorder) error {
	return func(ctx context.Context, _ *Purger, d Dev, rec *recorder) error {
		// Format NVM completes before the command returns.
		c := rec.run(ctx, "nvme", "format", d.Path, fmt.Sprintf("--ses=%d", ses), "--force")
		if !c.OK() {
			return failed(c)
		}
		return nil
	}
}

// --- ATA ---

func ataProbe(ok func(ATASecurity) (bool, string)) func(context.Context, Exec, Dev, *recorder) (bool, string) {
	return func(ctx context.Context, _ Exec, d Dev, rec *recorder) (bool, string) {
		c := rec.run(ctx, "hdparm", "-I", d.Path)
		if !c.OK() {
			return false, failed(c).Error()
		}
		s, err := ParseHdparmIdentify(c.Output)
		if err != nil {
			return false, err.Error()
		}
		good, why := ok(s)
		if !good {
			return false, d.Path + ": " + why
		}
		return true, ""
	}
}

func secureEraseReady(s ATASecurity) (bool, string) {
	switch {
	case !s.Supported:
		return false, "the security feature set is not supported"
	case s.Frozen:
		return false, "security is frozen (the BIOS froze it: suspend and resume the machine, or hot-plug the drive, to unfreeze)"
	case s.Locked:
		return false, "the drive is locked with a password"
	case s.Enabled:
		return false, "a security password is already set"
	}
	return true, ""
}

func ataSanitize(flag string) func(context.Context, *Purger, Dev, *recorder) error {
	return func(ctx context.Context, p *Purger, d Dev, rec *recorder) error {
		c := rec.run(ctx, "hdparm", "--yes-i-know-what-i-am-doing", flag, d.Path)
		if !c.OK() {
			return failed(c)
		}
		return p.poll(ctx, func() (bool, error) {
			c := rec.run(ctx, "hdparm", "--sanitize-status", d.Path)
			if !c.OK() {
				return false, failed(c)
			}
			running, pct, bad, err := ATASanitizeStatus(c.Output)
			switch {
			case err != nil:
				return false, err
			case bad:
				return false, fmt.Errorf("%s: the sanitize operation failed", d.Path)
			case running:
				rec.progress("sanitize %s: %d %%", d.Path, pct)
				return false, nil
			}
			return true, nil
		})
	}
}

// ataSecurePassword is set only for the erase, which clears it.
const ataSecurePassword = "ptsrun"

func ataSecureErase(ctx context.Context, _ *Purger, d Dev, rec *recorder) error {
	c := rec.run(ctx, "hdparm", "-I", d.Path)
	s, err := ParseHdparmIdentify(c.Output)
	if err != nil {
		return err
	}
	if ok, why := secureEraseReady(s); !ok {
		return fmt.Errorf("%s: %s", d.Path, why)
	}
	c = rec.run(ctx, "hdparm", "--user-master", "u", "--security-set-pass", ataSecurePassword, d.Path)
	if !c.OK() {
		return failed(c)
	}
	erase := "--security-erase"
	if s.Enhanced {
		erase = "--security-erase-enhanced"
	}
	c = rec.run(ctx, "hdparm", "--user-master", "u", erase, ataSecurePassword, d.Path)
	if !c.OK() {
		// Do not leave the drive with ptsrun's password on it.
		rec.run(context.Background(), "hdparm", "--user-master", "u", "--security-disable", ataSecurePassword, d.Path)
		return failed(c)
	}
	// A successful erase clears the password; check that it did.
	c = rec.run(ctx, "hdparm", "-I", d.Path)
	after, err := ParseHdparmIdentify(c.Output)
	if err != nil {
		return err
	}
	if after.Enabled || after.Locked {
		d2 := rec.run(context.Background(), "hdparm", "--user-master", "u", "--security-disable", ataSecurePassword, d.Path)
		if !d2.OK() {
			return fmt.Errorf("%s: the security password %q is still set after the erase and could not be removed", d.Path, ataSecurePassword)
		}
	}
	return nil
}

// --- SCSI ---

func scsiProbe(ctx context.Context, _ Exec, d Dev, rec *recorder) (bool, string) {
	c := rec.run(ctx, "sg_opcodes", "--opcode=0x48", d.Path)
	if !c.OK() || strings.Contains(strings.ToLower(c.Output), "not supported") {
		return false, d.Path + " does not support SANITIZE (sg_opcodes)"
	}
	return true, ""
}

func scsiRun(args ...string) func(context.Context, *Purger, Dev, *recorder) error {
	return func(ctx context.Context, p *Purger, d Dev, rec *recorder) error {
		c := rec.run(ctx, append(args, d.Path)...)
		if !c.OK() {
			return failed(c)
		}
		// --early returns at once; the drive reports progress until done.
		return p.poll(ctx, func() (bool, error) {
			c := rec.run(ctx, "sg_requests", "--progress", d.Path)
			pct, running := SCSIProgress(c.Output)
			if running {
				rec.progress("%s %s: %.1f %%", filepath.Base(args[0]), d.Path, pct)
			}
			return !running, nil
		})
	}
}
