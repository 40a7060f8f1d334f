package cpuidle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Setting is the CPU wake-up latency ptsrun asks the kernel for while it
// measures (--cpu-idle).
type Setting struct {
	// Host leaves the host's idle states as they are.
	Host bool
	// Limit is the longest exit latency an idle state may have: 0 keeps
	// the idle CPUs polling.
	Limit time.Duration
}

// Shallow is the default: idle CPUs poll while ptsrun measures.
var Shallow = Setting{}

// MaxLimit is the longest limit Parse accepts: beyond it every host's
// idle states are allowed, and "host" says so plainly.
const MaxLimit = 10 * time.Millisecond

// Parse reads --cpu-idle: "" or "shallow", "host", or a duration up to
// MaxLimit such as "10us" (whole microseconds, the kernel's unit).
func Parse(s string) (Setting, error) {
	switch s {
	case "", "shallow":
		return Shallow, nil
	case "host":
		return Setting{Host: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > MaxLimit || d%time.Microsecond != 0 {
		return Setting{}, fmt.Errorf("--cpu-idle %q: want shallow, host, or a whole number of microseconds up to 10ms such as 20us", s)
	}
	return Setting{Limit: d}, nil
}

// String is s as Parse reads it.
func (s Setting) String() string {
	switch {
	case s.Host:
		return "host"
	case s.Limit == 0:
		return "shallow"
	}
	return s.Limit.String()
}

// State is what the host's idle states were while ptsrun measured: the
// kernel's cpuidle driver and governor, its states, and what ptsrun held.
// It is recorded in run.json (device.Host).
type State struct {
	Driver   string `json:"driver,omitempty"`
	Governor string `json:"governor,omitempty"`
	// States are CPU 0's idle states, shallowest first.
	States []IdleState `json:"states,omitempty"`
	// Asked is the Setting as Parse reads it.
	Asked string `json:"asked"`
	// Held says the request is taken: no idle state that takes longer
	// than HeldUs to leave is entered.
	Held   bool `json:"held"`
	HeldUs int  `json:"held_us,omitempty"`
	// Note says why a request asked for was not held.
	Note string `json:"note,omitempty"`
	// Began is, once a resume held the idle CPUs otherwise than the run
	// had, what they were when the run began (Label's words).
	Began string `json:"began,omitempty"`
}

// IdleState is one of the cpuidle driver's states: its name and how long
// the kernel says a CPU takes to leave it.
type IdleState struct {
	Name      string `json:"name"`
	LatencyUs int    `json:"latency_us"`
}

// pollName is the name the kernel gives its polling state (cpuidle's
// poll_state.c), the one state in which an idle CPU does not sleep.
const pollName = "POLL"

// Polls says whether the host's idle CPUs poll while the request is held:
// every state that they may enter is the polling one. The governors
// (menu, teo, haltpoll) always allow the first state, whatever its exit
// latency, and others no slower to leave than HeldUs; an arm64 host's
// first is WFI, which waits for an interrupt. When they poll, waking a
// CPU needs no interrupt: the kernel sees it polling and only flags it. A
// host without a cpuidle driver idles in the architecture's halt, which a
// request does not change.
func (st State) Polls() bool {
	if !st.Held || len(st.States) == 0 {
		return false
	}
	for i, s := range st.States {
		if (i == 0 || s.LatencyUs <= st.HeldUs) && s.Name != pollName {
			return false
		}
	}
	return true
}

// Warning is what to tell the user when the request asked for could not
// be held (not root, no PM QoS file), "" otherwise: the response times at
// a low queue depth then include the host's CPU wake-ups.
func (st *State) Warning() string {
	if st == nil || st.Held || st.Asked == "host" {
		return ""
	}
	return "idle CPUs " + st.Note + "; low-queue-depth response times include the host's CPU wake-ups"
}

// Label is the state for a report: of the host's idle states the driver
// and the deepest, and what was held of them.
func (st State) Label() string {
	var what string
	switch {
	case st.Held && len(st.States) == 0:
		// Without a cpuidle driver the idle loop halts whatever is
		// asked: the request is held and changes nothing.
		what = fmt.Sprintf("PM QoS %d µs held, no effect", st.HeldUs)
	case st.Polls():
		what = fmt.Sprintf("kept polling (PM QoS %d µs)", st.HeldUs)
	case st.Held && st.HeldUs == 0:
		// The governors keep the first state, which here is not POLL.
		what = fmt.Sprintf("only %s, the shallowest (PM QoS 0 µs)", st.States[0].Name)
	case st.Held:
		what = fmt.Sprintf("none slower than %d µs to wake (PM QoS)", st.HeldUs)
	case st.Asked == "host":
		what = "as the host has them (--cpu-idle host)"
	default:
		what = st.Note
	}
	if st.Held && st.Note != "" {
		what += " " + st.Note
	}
	if st.Began != "" {
		what += "; since a resume, the run began with: " + st.Began
	}
	if len(st.States) == 0 {
		// The kernel says "none", or has no cpuidle at all.
		return "no cpuidle driver, idle CPUs halt; " + what
	}
	s := st.Driver
	if n := len(st.States); n > 0 {
		s += fmt.Sprintf(", deepest %s %d µs", st.States[n-1].Name, st.States[n-1].LatencyUs)
	}
	return s + "; " + what
}

// Probe reads the host's idle states from the sysfs under root ("/" on a
// live system). A host without cpuidle has none: the zero State.
func Probe(root string) State {
	dir := filepath.Join(root, "sys/devices/system/cpu/cpuidle")
	st := State{Driver: read(filepath.Join(dir, "current_driver")), Governor: read(filepath.Join(dir, "current_governor"))}
	if st.Governor == "" {
		st.Governor = read(filepath.Join(dir, "current_governor_ro"))
	}
	for i := 0; ; i++ {
		sd := filepath.Join(root, "sys/devices/system/cpu/cpu0/cpuidle", "state"+strconv.Itoa(i))
		name := read(filepath.Join(sd, "name"))
		if name == "" {
			break
		}
		// A latency that cannot be read is taken as 0: the state is then
		// counted as one a request cannot rule out (Polls is false).
		lat, _ := strconv.Atoi(read(filepath.Join(sd, "latency")))
		st.States = append(st.States, IdleState{Name: name, LatencyUs: lat})
	}
	return st
}

func read(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// QoSPath is the kernel's PM QoS CPU latency file.
const QoSPath = "/dev/cpu_dma_latency"

// Hold is a held PM QoS request; Release drops it.
type Hold struct {
	f *os.File
}

// Take asks the kernel for s through the file at path (QoSPath) and
// returns the hold with the host's State under root. It does not fail: a
// request that cannot be made (no such file, not root) is not held, and
// the State says why. A Setting of "host" makes no request.
func Take(s Setting, root, path string) (*Hold, State) {
	st := Probe(root)
	st.Asked = s.String()
	if s.Host {
		return &Hold{}, st
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		st.Note = "not held: " + reason(err)
		return &Hold{}, st
	}
	us := int32(s.Limit / time.Microsecond)
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(us))
	// Four bytes are read as a binary s32 (anything else as hex text).
	if _, err := f.Write(b[:]); err != nil {
		f.Close()
		st.Note = "not held: " + reason(err)
		return &Hold{}, st
	}
	st.Held, st.HeldUs = true, int(us)
	return &Hold{f: f}, st
}

func reason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// Release drops the request; the host's idle states are its own again.
// A nil or empty Hold is a no-op.
func (h *Hold) Release() {
	if h == nil || h.f == nil {
		return
	}
	h.f.Close()
	h.f = nil
}

// Current reads the kernel's effective CPU latency limit in microseconds
// from path (QoSPath): the least of every request held.
func Current(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(b) != 4 {
		return 0, fmt.Errorf("%s: %d bytes, want 4", path, len(b))
	}
	return int(int32(binary.NativeEndian.Uint32(b))), nil
}
