package engine

import (
	"context"
	"errors"
	"time"
)

// Purger is implemented by engines that reach targets nothing else does: the
// simulated drive formats itself, and fio servers' hosts run an fio trim or
// zero-fill job the way they run workloads. The precondition package
// chooses the method and reports it; real devices on this host it purges
// itself.
type Purger interface {
	// Purge runs job (PurgeFormat, PurgeTrim or PurgeZeroFill) on every
	// target at once. The report says what ran and what was checked, as
	// far as it got when there is an error too.
	Purge(ctx context.Context, job string) (PurgeReport, error)
}

// Purge jobs. Only the simulated drive's format is a PTS purge; the others
// are substitutes.
const (
	PurgeFormat   = "format"    // the simulated drive's format with user-data erase
	PurgeTrim     = "trim"      // discard every block
	PurgeZeroFill = "zero-fill" // write zeros over every block
)

// PurgeReport is what a purge job ran and found.
type PurgeReport struct {
	Args     []string // the command, runnable by hand; none for the simulated drive
	Output   string   // what it did, per target
	Exit     int
	Duration time.Duration // on the target's own clock where it has one (the simulated drive's)
	Verified string        // what was checked, per target
}

// WriteCacher reads and sets the volatile write cache of a target set:
// precondition.CacheControl with the devices' tools, the simulated drive
// its own.
type WriteCacher interface {
	// WriteCache reads the set's state: ErrNoVolatileCache when no device
	// has a volatile write cache, another error when the devices differ
	// or one cannot be read.
	WriteCache() (enabled bool, err error)
	// SetWriteCache enables or disables every device's volatile write
	// cache.
	SetWriteCache(enabled bool) error
	// DeviceWriteCaches reads each device's state, by path: those that
	// can be read, for a set with no one state.
	DeviceWriteCaches() map[string]bool
	// RestoreDeviceWriteCaches puts each device named back to its state;
	// the others are left alone.
	RestoreDeviceWriteCaches(states map[string]bool) error
	// TakeCommands returns the commands run since the last call, for the
	// journal.
	TakeCommands() []Command
}

// ErrNoVolatileCache means that no device of the set has a volatile write
// cache (NVMe VWC bit 0 clear): there is nothing to enable or disable, and
// writes are as durable as with the cache disabled.
var ErrNoVolatileCache = errors.New("no volatile write cache")

// Command is an external command run for a purge or a device setting: what
// ran, what it said, how it ended and how long it took.
type Command struct {
	Args     []string      `json:"args"`
	Target   string        `json:"target,omitempty"`
	Output   string        `json:"output,omitempty"`
	Exit     int           `json:"exit"`
	Duration time.Duration `json:"duration_ns"`
}

// OK reports a zero exit status.
func (c Command) OK() bool { return c.Exit == 0 }
