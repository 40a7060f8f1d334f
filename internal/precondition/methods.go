package precondition

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
)

// Dev is what a purge needs to know of one target.
type Dev struct {
	Path       string // /dev/nvme0n1, /dev/sda, or a file
	Kind       string // device.KindBlock or device.KindFile
	Interface  string // NVMe, SATA, SAS, SCSI, loop, virtio, dm, md, file
	Controller string // NVMe: the controller node (/dev/nvme0)
	NSID       int    // NVMe: the namespace ID; 0 when not known
	Namespaces []string
	// Disk is the whole disk (or NVMe namespace) of a target that is a
	// partition: what every method but discard and zero-fill erases.
	Disk         string
	Capacity     int64
	LogicalBlock int64
	Discard      bool // takes discards (TRIM/UNMAP/Deallocate)
}

var nvmeNS = regexp.MustCompile(`^(nvme\d+)n\d+$`)

// DevOf describes a target for purging. Namespaces are the other namespaces
// of an NVMe target's controller, by device path: a controller-wide purge
// erases them too; Disk the disk of a partition, which a purge of the
// device erases whole.
func DevOf(t device.Target) Dev {
	d := Dev{Path: t.Path, Kind: t.Kind, Capacity: t.Capacity, LogicalBlock: t.LogicalBlock, Interface: "file"}
	if b := t.Block; b != nil {
		d.Path = b.Path()
		d.Interface = b.Interface
		d.Discard = b.DiscardMax > 0
		if m := nvmeNS.FindStringSubmatch(b.Name); m != nil {
			d.Controller = "/dev/" + m[1]
		}
		if b.Controller != "" && strings.HasPrefix(b.Controller, "nvme") && !strings.Contains(b.Controller, "subsys") {
			d.Controller = "/dev/" + b.Controller
		}
		d.NSID = b.NSID
		if b.Partition {
			d.Disk = "/dev/" + b.Parent
		}
		for _, n := range b.Namespaces {
			d.Namespaces = append(d.Namespaces, "/dev/"+n)
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

// completion is what a method's run learnt of its end: what the device or
// its tool reported, and whether the erased blocks are now deallocated (and
// so read as the device's deallocated-block pattern).
type completion struct {
	evidence    string
	deallocated bool
}

// whole is the device a method that works on whole disks addresses: the
// disk of a partition, else the target.
func (d Dev) whole() string {
	if d.Disk != "" {
		return d.Disk
	}
	return d.Path
}

// method is one purge method.
type method struct {
	name       string
	compliant  bool
	interfaces []string // "" for any
	// partial: the method erases the target's blocks alone (discard,
	// zero-fill), a partition's and no more. Every other method erases
	// the whole disk or NVMe namespace, and those of wide more.
	partial bool
	about   string
	// wide reports whether, on this controller, the method erases every
	// namespace rather than the target's alone. nil: the target only.
	wide  func(NVMeController) bool
	probe func(ctx context.Context, x Exec, d Dev, rec *recorder) (bool, string)
	run   func(ctx context.Context, p *Purger, d Dev, rec *recorder) (completion, error)
	// expect is what the erased blocks must read back as: a byte pattern the
	// device promises, or −1 when it promises none (then nothing is read
	// back and completion rests on what the device reported), with why.
	expect func(ctx context.Context, d Dev, c completion, rec *recorder) (int, string)
}

// Sanitize always covers the NVM subsystem; a format covers every namespace
// when FNA bit 0 says all share one format, and its secure erase when bit 1
// says so.
func sanitizeWide(NVMeController) bool { return true }
func formatWide(c NVMeController) bool { return c.FNA&0x1 != 0 || c.FNA&0x2 != 0 }

// catalogue is every method, in the order auto tries them.
var catalogue = []method{
	{name: NVMeSanitize, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Sanitize, block erase (SANACT 2), polled to completion",
		wide: sanitizeWide, probe: nvmeProbe(func(c NVMeController) bool { return c.SanitizeBlock() }, "sanitize block erase"),
		run: nvmeSanitize(2), expect: nvmeDeallocated},
	{name: NVMeSanitizeCrypto, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Sanitize, crypto erase (SANACT 4), polled to completion",
		wide: sanitizeWide, probe: nvmeProbe(func(c NVMeController) bool { return c.SanitizeCrypto() }, "sanitize crypto erase"),
		run: nvmeSanitize(4), expect: nvmeDeallocated},
	{name: NVMeFormat, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Format NVM with user data erase (SES 1)",
		wide: formatWide, probe: nvmeProbe(func(c NVMeController) bool { return c.Format() }, "Format NVM"),
		run: nvmeFormat(1), expect: indeterminate("after Format NVM the user data is indeterminate (NVMe: SES 1 erases, the content is the drive's)")},
	{name: NVMeFormatCrypto, compliant: true, interfaces: []string{"NVMe"}, about: "NVMe Format NVM with crypto erase (SES 2)",
		wide: formatWide, probe: nvmeProbe(func(c NVMeController) bool { return c.Format() && c.FormatCrypto() }, "crypto erase in Format NVM"),
		run: nvmeFormat(2), expect: indeterminate("after a crypto erase the user data reads as whatever the lost key makes of it")},
	{name: ATASanitize, compliant: true, interfaces: []string{"SATA"}, about: "ATA SANITIZE BLOCK ERASE EXT, polled to completion",
		probe: ataProbe(func(s ATASecurity) (bool, string) { return s.SanitizeBlock, "no SANITIZE BLOCK ERASE EXT" }), run: ataSanitize("--sanitize-block-erase"),
		expect: indeterminate("after an ATA block erase the content is the drive's (ACS: vendor specific)")},
	{name: ATASanitizeCrypto, compliant: true, interfaces: []string{"SATA"}, about: "ATA SANITIZE CRYPTO SCRAMBLE EXT, polled to completion",
		probe: ataProbe(func(s ATASecurity) (bool, string) { return s.SanitizeCrypto, "no SANITIZE CRYPTO SCRAMBLE EXT" }), run: ataSanitize("--sanitize-crypto-scramble"),
		expect: indeterminate("after a crypto scramble the content is whatever the lost key makes of it")},
	{name: ATASecureErase, compliant: true, interfaces: []string{"SATA"}, about: "ATA SECURITY ERASE UNIT (enhanced when supported) with a temporary password",
		probe: ataProbe(secureEraseReady), run: ataSecureErase,
		expect: indeterminate("an enhanced security erase writes a vendor pattern")},
	{name: SCSISanitize, compliant: true, interfaces: []string{"SAS", "SCSI"}, about: "SCSI SANITIZE, block erase, polled to completion",
		probe: scsiProbe, run: scsiRun("sg_sanitize", "--block", "--quick", "--early"),
		expect: indeterminate("after a SCSI block erase the content is the drive's")},
	{name: SCSISanitizeCrypto, compliant: true, interfaces: []string{"SAS", "SCSI"}, about: "SCSI SANITIZE, cryptographic erase, polled to completion",
		probe: scsiProbe, run: scsiRun("sg_sanitize", "--crypto", "--quick", "--early"),
		expect: indeterminate("after a cryptographic erase the content is whatever the lost key makes of it")},
	{name: SCSIFormat, compliant: true, interfaces: []string{"SAS", "SCSI"}, about: "SCSI FORMAT UNIT, polled to completion",
		probe: func(context.Context, Exec, Dev, *recorder) (bool, string) { return true, "" }, run: scsiRun("sg_format", "--format", "--early"),
		expect: indeterminate("FORMAT UNIT leaves the content to the drive")},
	{name: Discard, compliant: false, partial: true, about: "discard (TRIM/UNMAP/Deallocate) of every block: a substitute, not a PTS purge",
		probe: func(_ context.Context, _ Exec, d Dev, _ *recorder) (bool, string) {
			return d.Discard, "the device takes no discards"
		}, run: discardRun, expect: discardedZeros},
	{name: ZeroFill, compliant: false, partial: true, about: "zeros written over every block: a substitute, not a PTS purge",
		probe: func(context.Context, Exec, Dev, *recorder) (bool, string) { return true, "" }, run: zeroFillRun,
		expect: func(context.Context, Dev, completion, *recorder) (int, string) { return 0, "zeros were written" }},
}

// indeterminate is the expectation of a method after which the device
// promises no content.
func indeterminate(why string) func(context.Context, Dev, completion, *recorder) (int, string) {
	return func(context.Context, Dev, completion, *recorder) (int, string) { return -1, why }
}

// nvmeDeallocated: after a sanitize that deallocated, blocks read as the
// namespace's DLFEAT says (Identify Namespace byte 33, bits 2:0).
func nvmeDeallocated(ctx context.Context, d Dev, c completion, rec *recorder) (int, string) {
	if !c.deallocated {
		return -1, "the sanitize left the blocks allocated (no-deallocate), so their content is the drive's"
	}
	ns, err := rec.idNS(ctx, d)
	if err != nil {
		return -1, "what deallocated blocks read as is not known (" + err.Error() + ")"
	}
	if p := ns.DeallocatedPattern(); p >= 0 {
		return p, fmt.Sprintf("DLFEAT %d: deallocated blocks read as %s", ns.DLFEAT&0x7, patternName(p))
	}
	return -1, fmt.Sprintf("DLFEAT %d: the drive does not say what deallocated blocks read as", ns.DLFEAT&0x7)
}

// discardedZeros: a discard is read back only where the device promises
// zeros for discarded blocks (a hole punched in a file or a loop device's
// backing file; NVMe DLFEAT 1; ATA RZAT; SCSI LBPRZ 1).
func discardedZeros(ctx context.Context, d Dev, _ completion, rec *recorder) (int, string) {
	switch {
	case d.Kind == device.KindFile:
		return 0, "a punched hole reads as zeros"
	case d.Interface == "loop":
		return 0, "a loop device's discard punches a hole in its backing file, which reads as zeros"
	case d.Interface == "NVMe":
		ns, err := rec.idNS(ctx, d)
		if err != nil {
			return -1, "what deallocated blocks read as is not known (" + err.Error() + ")"
		}
		if ns.DeallocatedPattern() >= 0 {
			return ns.DeallocatedPattern(), fmt.Sprintf("DLFEAT %d: deallocated blocks read as %s", ns.DLFEAT&0x7, patternName(ns.DeallocatedPattern()))
		}
		return -1, fmt.Sprintf("DLFEAT %d: the drive does not say what deallocated blocks read as", ns.DLFEAT&0x7)
	case d.Interface == "SATA":
		c := rec.run(ctx, "hdparm", "-I", d.whole())
		if c.OK() && ParseRZAT(c.Output) {
			return 0, "the drive reads zeros after TRIM (RZAT)"
		}
		return -1, "the drive does not promise zeros after TRIM (no RZAT)"
	case d.Interface == "SAS" || d.Interface == "SCSI":
		c := rec.run(ctx, "sg_readcap", "--long", d.whole())
		if lbprz, ok := ParseLBPRZ(c.Output); c.OK() && ok && lbprz == 1 {
			return 0, "unmapped blocks read as zeros (LBPRZ 1)"
		}
		return -1, "the drive does not promise zeros for unmapped blocks (LBPRZ is not 1)"
	}
	return -1, fmt.Sprintf("a %s device does not say what discarded blocks read as", d.Interface)
}

func patternName(p int) string {
	if p == 0 {
		return "zeros"
	}
	return fmt.Sprintf("bytes %#02x", p)
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

// recorder keeps every command a purge runs, for the journal, and what the
// identify commands said, so that each runs once per purge.
type recorder struct {
	x    Exec
	cmds []Command
	log  func(string)
	ctrl map[string]NVMeController
	ns   map[string]NVMeNamespace
}

// idCtrl is the Identify Controller data of d's controller.
func (r *recorder) idCtrl(ctx context.Context, d Dev) (NVMeController, error) {
	if d.Controller == "" {
		return NVMeController{}, fmt.Errorf("no NVMe controller for %s", d.Path)
	}
	if c, ok := r.ctrl[d.Controller]; ok {
		return c, nil
	}
	c := r.run(ctx, "nvme", "id-ctrl", d.Controller, "-o", "json")
	if !c.OK() {
		return NVMeController{}, failed(c)
	}
	id, err := ParseNVMeIDCtrl(c.Output)
	if err != nil {
		return id, fmt.Errorf("%s: %w", d.Controller, err)
	}
	if r.ctrl == nil {
		r.ctrl = map[string]NVMeController{}
	}
	r.ctrl[d.Controller] = id
	return id, nil
}

// idNS is the Identify Namespace data of d.
func (r *recorder) idNS(ctx context.Context, d Dev) (NVMeNamespace, error) {
	if ns, ok := r.ns[d.whole()]; ok {
		return ns, nil
	}
	c := r.run(ctx, "nvme", "id-ns", d.whole(), "-o", "json")
	if !c.OK() {
		return NVMeNamespace{}, failed(c)
	}
	ns, err := ParseNVMeIDNS(c.Output)
	if err != nil {
		return ns, fmt.Errorf("%s: %w", d.whole(), err)
	}
	if r.ns == nil {
		r.ns = map[string]NVMeNamespace{}
	}
	r.ns[d.whole()] = ns
	return ns, nil
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
		id, err := rec.idCtrl(ctx, d)
		if err != nil {
			return false, err.Error()
		}
		if !ok(id) {
			return false, fmt.Sprintf("%s does not support %s (sanicap %#x, oacs %#x, fna %#x)", d.Controller, what, id.SANICAP, id.OACS, id.FNA)
		}
		return true, ""
	}
}

func nvmeSanitize(action int) func(context.Context, *Purger, Dev, *recorder) (completion, error) {
	return func(ctx context.Context, p *Purger, d Dev, rec *recorder) (completion, error) {
		c := rec.run(ctx, "nvme", "sanitize", d.Controller, fmt.Sprintf("--sanact=%d", action))
		if !c.OK() {
			return completion{}, failed(c)
		}
		// Sanitize runs in the background: the sanitize status log says
		// when it ends and how.
		var end SanitizeState
		err := p.poll(ctx, func() (bool, error) {
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
				end = st
				return true, nil
			case SanitizeFailed:
				return false, fmt.Errorf("%s: the sanitize operation failed (sanitize status log)", d.Controller)
			}
			return false, fmt.Errorf("%s: sanitize status %d after the command", d.Controller, st.Status)
		})
		if err != nil {
			return completion{}, err
		}
		ev := fmt.Sprintf("sanitize status log of %s: completed (SSTAT %d", d.Controller, end.Status)
		if end.GlobalErased {
			ev += ", global data erased"
		}
		ev += ")"
		return completion{evidence: ev, deallocated: end.Status == SanitizeDone}, nil
	}
}

func nvmeFormat(ses int) func(context.Context, *Purger, Dev, *recorder) (completion, error) {
	return func(ctx context.Context, _ *Purger, d Dev, rec *recorder) (completion, error) {
		// Format NVM completes before the command returns. The namespace is
		// named: where FNA allows, only it is formatted.
		args := []string{"nvme", "format", d.whole(), fmt.Sprintf("--ses=%d", ses)}
		if d.NSID > 0 {
			args = append(args, fmt.Sprintf("--namespace-id=%d", d.NSID))
		}
		c := rec.run(ctx, append(args, "--force")...)
		if !c.OK() {
			return completion{}, failed(c)
		}
		return completion{evidence: "Format NVM completed successfully (nvme format exit 0)"}, nil
	}
}

// --- ATA ---

func ataProbe(ok func(ATASecurity) (bool, string)) func(context.Context, Exec, Dev, *recorder) (bool, string) {
	return func(ctx context.Context, _ Exec, d Dev, rec *recorder) (bool, string) {
		c := rec.run(ctx, "hdparm", "-I", d.whole())
		if !c.OK() {
			return false, failed(c).Error()
		}
		s, err := ParseHdparmIdentify(c.Output)
		if err != nil {
			return false, err.Error()
		}
		good, why := ok(s)
		if !good {
			return false, d.whole() + ": " + why
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

func ataSanitize(flag string) func(context.Context, *Purger, Dev, *recorder) (completion, error) {
	return func(ctx context.Context, p *Purger, d Dev, rec *recorder) (completion, error) {
		c := rec.run(ctx, "hdparm", "--yes-i-know-what-i-am-doing", flag, d.whole())
		if !c.OK() {
			return completion{}, failed(c)
		}
		var last string
		err := p.poll(ctx, func() (bool, error) {
			c := rec.run(ctx, "hdparm", "--sanitize-status", d.whole())
			if !c.OK() {
				return false, failed(c)
			}
			running, pct, bad, err := ATASanitizeStatus(c.Output)
			switch {
			case err != nil:
				return false, err
			case bad:
				return false, fmt.Errorf("%s: the sanitize operation failed", d.whole())
			case running:
				rec.progress("sanitize %s: %d %%", d.whole(), pct)
				return false, nil
			}
			last = c.Output
			return true, nil
		})
		if err != nil {
			return completion{}, err
		}
		return completion{evidence: "hdparm --sanitize-status: " + ATASanitizeState(last)}, nil
	}
}

// ataSecurePassword is set only for the erase, which clears it.
const ataSecurePassword = "ptsrun"

func ataSecureErase(ctx context.Context, _ *Purger, d Dev, rec *recorder) (completion, error) {
	err := ataSecureEraseRun(ctx, d, rec)
	return completion{evidence: "SECURITY ERASE UNIT completed (hdparm exit 0) and the drive's security is disabled again"}, err
}

func ataSecureEraseRun(ctx context.Context, d Dev, rec *recorder) error {
	c := rec.run(ctx, "hdparm", "-I", d.whole())
	s, err := ParseHdparmIdentify(c.Output)
	if err != nil {
		return err
	}
	if ok, why := secureEraseReady(s); !ok {
		return fmt.Errorf("%s: %s", d.whole(), why)
	}
	c = rec.run(ctx, "hdparm", "--user-master", "u", "--security-set-pass", ataSecurePassword, d.whole())
	if !c.OK() {
		return failed(c)
	}
	erase := "--security-erase"
	if s.Enhanced {
		erase = "--security-erase-enhanced"
	}
	c = rec.run(ctx, "hdparm", "--user-master", "u", erase, ataSecurePassword, d.whole())
	if !c.OK() {
		// Do not leave the drive with ptsrun's password on it.
		rec.run(context.Background(), "hdparm", "--user-master", "u", "--security-disable", ataSecurePassword, d.whole())
		return failed(c)
	}
	// A successful erase clears the password; check that it did.
	c = rec.run(ctx, "hdparm", "-I", d.whole())
	after, err := ParseHdparmIdentify(c.Output)
	if err != nil {
		return err
	}
	if after.Enabled || after.Locked {
		d2 := rec.run(context.Background(), "hdparm", "--user-master", "u", "--security-disable", ataSecurePassword, d.whole())
		if !d2.OK() {
			return fmt.Errorf("%s: the security password %q is still set after the erase and could not be removed", d.whole(), ataSecurePassword)
		}
	}
	return nil
}

// --- SCSI ---

func scsiProbe(ctx context.Context, _ Exec, d Dev, rec *recorder) (bool, string) {
	c := rec.run(ctx, "sg_opcodes", "--opcode=0x48", d.whole())
	if !c.OK() || strings.Contains(strings.ToLower(c.Output), "not supported") {
		return false, d.whole() + " does not support SANITIZE (sg_opcodes)"
	}
	return true, ""
}

func scsiRun(args ...string) func(context.Context, *Purger, Dev, *recorder) (completion, error) {
	return func(ctx context.Context, p *Purger, d Dev, rec *recorder) (completion, error) {
		c := rec.run(ctx, append(args, d.whole())...)
		if !c.OK() {
			return completion{}, failed(c)
		}
		// --early returns at once; the drive reports progress until done,
		// then its sense data says how it ended.
		var sense string
		err := p.poll(ctx, func() (bool, error) {
			c := rec.run(ctx, "sg_requests", "--progress", d.whole())
			if pct, running := SCSIProgress(c.Output); running {
				rec.progress("%s %s: %.1f %%", filepath.Base(args[0]), d.whole(), pct)
				return false, nil
			}
			if !c.OK() {
				return false, failed(c)
			}
			sense = c.Output
			return true, nil
		})
		if err != nil {
			return completion{}, err
		}
		key, ok := SCSISenseKey(sense)
		switch {
		case !ok:
			return completion{}, fmt.Errorf("%s: no sense data after %s: %q", d.whole(), args[0], firstLine(sense))
		case key != "No Sense":
			return completion{}, fmt.Errorf("%s: %s ended with sense key %s (%s)", d.whole(), args[0], key, SCSIAdditionalSense(sense))
		}
		return completion{evidence: "sg_requests: sense key No Sense after " + args[0]}, nil
	}
}
