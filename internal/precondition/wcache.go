package precondition

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// CacheControl reads and sets the volatile write cache of real devices with
// the interface's tool: NVMe feature 6 (nvme-cli), ATA (hdparm -W), SCSI
// caching mode page WCE (sdparm, current values only, nothing saved).
type CacheControl struct {
	Devs []Dev
	Exec Exec
	cmds []Command
	ctrl map[string]NVMeController // Identify Controller, by controller
}

// ErrNoVolatileCache means that no device of the set has a volatile write
// cache: engine.ErrNoVolatileCache, under the name callers know.
var ErrNoVolatileCache = engine.ErrNoVolatileCache

var _ engine.WriteCacher = (*CacheControl)(nil)

// hasCache reports whether d has a volatile write cache. NVMe says so in
// Identify Controller (VWC); other interfaces are taken to have one, and
// their tools say otherwise when they fail.
func (c *CacheControl) hasCache(d Dev) (bool, error) {
	if d.Interface != "NVMe" {
		return true, nil
	}
	id, ok := c.ctrl[d.Controller]
	if !ok {
		cmd := c.run("nvme", "id-ctrl", d.Controller, "-o", "json")
		if !cmd.OK() {
			return false, failed(cmd)
		}
		var err error
		if id, err = ParseNVMeIDCtrl(cmd.Output); err != nil {
			return false, fmt.Errorf("%s: %w", d.Controller, err)
		}
		if c.ctrl == nil {
			c.ctrl = map[string]NVMeController{}
		}
		c.ctrl[d.Controller] = id
	}
	return id.WriteCache(), nil
}

// cached is the devices of the set that have a volatile write cache.
func (c *CacheControl) cached() ([]Dev, error) {
	var out []Dev
	for _, d := range c.Devs {
		has, err := c.hasCache(d)
		if err != nil {
			return nil, err
		}
		if has {
			out = append(out, d)
		}
	}
	return out, nil
}

func (c *CacheControl) run(args ...string) Command {
	x := c.Exec
	if x == nil {
		x = System{}
	}
	cmd := x.Run(context.Background(), args...)
	c.cmds = append(c.cmds, cmd)
	return cmd
}

// TakeCommands returns the commands run since the last call, for the journal.
func (c *CacheControl) TakeCommands() []Command {
	out := c.cmds
	c.cmds = nil
	return out
}

func (c *CacheControl) get(d Dev) (bool, error) {
	var cmd Command
	tool := ""
	switch d.Interface {
	case "NVMe":
		tool, cmd = "nvme", c.run("nvme", "get-feature", d.Controller, "-f", "6")
	case "SATA":
		tool, cmd = "hdparm", c.run("hdparm", "-W", d.Path)
	case "SAS", "SCSI":
		tool, cmd = "sdparm", c.run("sdparm", "--get=WCE", d.Path)
	default:
		return false, fmt.Errorf("the write cache of %s (%s) cannot be read", d.Path, d.Interface)
	}
	if !cmd.OK() {
		return false, failed(cmd)
	}
	return ParseWriteCache(tool, cmd.Output)
}

// WriteCache reports the state of the devices that have a volatile write
// cache; all must agree. ErrNoVolatileCache when none has one.
func (c *CacheControl) WriteCache() (bool, error) {
	devs, err := c.cached()
	if err != nil {
		return false, err
	}
	if len(devs) == 0 {
		return false, ErrNoVolatileCache
	}
	var first bool
	for i, d := range devs {
		on, err := c.get(d)
		if err != nil {
			return false, err
		}
		if i == 0 {
			first = on
		} else if on != first {
			return false, fmt.Errorf("the targets' write caches differ (%s: %v, %s: %v)", devs[0].Path, first, d.Path, on)
		}
	}
	return first, nil
}

// DeviceWriteCaches reads each device's write cache: the state of every one
// that can be read, by path.
func (c *CacheControl) DeviceWriteCaches() map[string]bool {
	out := map[string]bool{}
	for _, d := range c.Devs {
		if has, err := c.hasCache(d); err == nil && !has {
			continue
		}
		if on, err := c.get(d); err == nil {
			out[d.Path] = on
		}
	}
	return out
}

// RestoreDeviceWriteCaches sets each device named in states to its state
// there; devices not named are left alone.
func (c *CacheControl) RestoreDeviceWriteCaches(states map[string]bool) error {
	var errs []error
	for _, d := range c.Devs {
		on, ok := states[d.Path]
		if !ok {
			continue
		}
		one := &CacheControl{Devs: []Dev{d}, Exec: c.Exec}
		if err := one.SetWriteCache(on); err != nil {
			errs = append(errs, err)
		}
		c.cmds = append(c.cmds, one.cmds...)
	}
	return joinErrors(errs)
}

// SetWriteCache enables or disables every device's volatile write cache;
// devices without one are left alone. A device that cannot be set does not
// stop the others from being set; the error names every one that failed.
func (c *CacheControl) SetWriteCache(on bool) error {
	v, w := "0", "-W0"
	if on {
		v, w = "1", "-W1"
	}
	var errs []error
	for _, d := range c.Devs {
		if has, err := c.hasCache(d); err != nil {
			errs = append(errs, err)
			continue
		} else if !has {
			continue
		}
		var cmd Command
		switch d.Interface {
		case "NVMe":
			cmd = c.run("nvme", "set-feature", d.Controller, "-f", "6", "-v", v)
		case "SATA":
			cmd = c.run("hdparm", w, d.Path)
		case "SAS", "SCSI":
			cmd = c.run("sdparm", "--set=WCE="+v, d.Path)
		default:
			errs = append(errs, fmt.Errorf("the write cache of %s (%s) cannot be set", d.Path, d.Interface))
			continue
		}
		if !cmd.OK() {
			errs = append(errs, failed(cmd))
		}
	}
	return joinErrors(errs)
}

// joinErrors joins errors on one line, for the journal and the report.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msg := errs[0].Error()
	for _, e := range errs[1:] {
		msg += "; " + e.Error()
	}
	return errors.New(msg)
}
