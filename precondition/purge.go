package precondition

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
)

// Purge methods.
const (
	Auto      = "auto"
	None      = "none"
	SimFormat = "sim-format" // the simulated drive's own format with user-data erase
)

// Result is what a purge did (PTS §3.2: the method and its result are reported).
type Result struct {
	Method    string        `json:"method"`
	Compliant bool          `json:"compliant"` // a PTS purge, not a substitute
	Skipped   bool          `json:"skipped,omitempty"`
	Commands  []Command     `json:"commands,omitempty"`
	Duration  time.Duration `json:"duration_ns"`
	Note      string        `json:"note,omitempty"`
}

// Command is an external command run for a purge or a device setting: what ran,
// what it said, how it ended and how long it took.
type Command struct {
	Args     []string      `json:"args"`
	Target   string        `json:"target,omitempty"`
	Output   string        `json:"output,omitempty"`
	Exit     int           `json:"exit"`
	Duration time.Duration `json:"duration_ns"`
}

// Methods lists every method name the command line accepts.
func Methods() []string { return []string{Auto, None, SimFormat} }

// Choose resolves the requested method for targets of the given kind: auto
// picks the best compliant one; an explicit method must apply to the kind.
func Choose(requested string, kind string) (string, error) {
	requested = strings.ToLower(strings.TrimSpace(requested))
	if requested == "" {
		requested = Auto
	}
	if !slices.Contains(Methods(), requested) {
		return "", fmt.Errorf("unknown purge method %q: known methods are %s", requested, strings.Join(Methods(), ", "))
	}
	switch {
	case requested == None:
		return None, nil
	case kind == device.KindSim && (requested == Auto || requested == SimFormat):
		return SimFormat, nil
	case kind == device.KindSim:
		return "", fmt.Errorf("purge method %s does not apply to a simulated drive", requested)
	}
	return "", fmt.Errorf("no purge method for %s targets yet (use --purge none to run without one; the report will say so)", kind)
}

// Purger purges a target set with a chosen method.
type Purger struct {
	Method string
	Engine engine.Engine // used by sim-format
}

// Purge runs the method and reports what it did.
func (p Purger) Purge(ctx context.Context) (Result, error) {
	switch p.Method {
	case None:
		return Result{Method: None, Skipped: true,
			Note: "no purge: the run starts from whatever state the device was in"}, nil
	case SimFormat:
		sp, ok := p.Engine.(engine.Purger)
		if !ok {
			return Result{}, fmt.Errorf("engine %s cannot purge a simulated drive", p.Engine.Describe())
		}
		took, err := sp.Purge(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("purging the simulated drive: %w", err)
		}
		return Result{Method: SimFormat, Compliant: true, Duration: took,
			Note: "simulated drive: format with user-data erase, every block erased (device time)"}, nil
	}
	return Result{}, fmt.Errorf("purge method %q is not available", p.Method)
}
