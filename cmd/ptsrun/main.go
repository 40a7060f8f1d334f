package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/confine"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// version is ptsrun's version, recorded in every run.
const version = "0.1.0"

// fullVersion is the version and, in a binary go build stamped, the commit
// it was built from ("0.1.0 (commit 1d4f9bc, modified, go1.26.8)"): two
// builds of one version tell apart. run.json records the same (RunInfo.Build).
func fullVersion() string { return pts.ThisBuild(version).String() }

// Exit codes (docs/exit-codes.md); 2 is left to the Go runtime.
const (
	exitOK          = 0
	exitError       = 1
	exitNotSteady   = 3 // completed, but steady state was not reached (or a regression was found)
	exitRefused     = 4 // refused an unsafe target
	exitInterrupted = 130
)

// errNotSteady marks a completed run, or a series, whose steady state was
// not reached.
var errNotSteady = errors.New("steady state not reached")

// exitCode decides the process exit status, in one place.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, pts.ErrInterrupted), errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, errNotSteady), errors.Is(err, errRegression):
		return exitNotSteady
	case errors.Is(err, device.ErrUnsafe):
		return exitRefused
	}
	return exitError
}

// reportedError is an error the command has already told the user about in
// its own words: a summary that names the stages not steady, a check's
// regressions, how to resume an interrupted run. exitCode sees through it;
// run does not print it again.
type reportedError struct{ err error }

func (e reportedError) Error() string { return e.err.Error() }
func (e reportedError) Unwrap() error { return e.err }

// reported marks err as told to the user already.
func reported(err error) error { return reportedError{err} }

func main() {
	confine.Init() // started to confine fio, this process becomes fio here
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signalContext()
	defer stop()
	app := newApp(stdout, stderr)
	err := clihelp.UnknownCommand(args, app.RunContext(ctx, flagsFirst(app, args)))
	if err != nil && !errors.As(err, new(reportedError)) {
		fmt.Fprintf(stderr, "ptsrun: %v\n", err)
	}
	return exitCode(err)
}

// signalContext is cancelled by the first SIGINT or SIGTERM; a second one
// ends the process at once.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		n := 0
		for range ch {
			n++
			if n == 1 {
				fmt.Fprintln(os.Stderr, "\nptsrun: stopping at the next cell boundary (again to quit at once)")
				cancel()
				continue
			}
			os.Exit(exitInterrupted)
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "ptsrun",
		Usage:   "SNIA SSS PTS 2.0.2 compliance tests for solid state storage",
		Version: fullVersion(),
		Writer:  stdout, ErrWriter: stderr,
		Suggest:        true,                         // "ptsrun rn": did you mean "run"? A mistyped flag too (clihelp.UsageError).
		ExitErrHandler: func(*cli.Context, error) {}, // exit codes are decided in run
		Commands: append([]*cli.Command{
			runCommand(), resumeCommand(), statusCommand(), reportCommand(), planCommand(), workloadCommand(), fioCommand(), devicesCommand(), ssCommand(), streamsCommand(), captureCommand(), replayCommand(), demoCommand(),
			checkCommand(), compareCommand(), importCommand(),
		}, clihelp.Commands("ptsrun")...), // completion, man
	}
	clihelp.Setup(app)
	return app
}

// flagsFirst moves a command's flags ahead of its arguments, so that
// "ptsrun report DIR -o x.pdf" works as people type it: urfave/cli stops
// reading flags at the first argument. Everything after "--" stays as it is.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	// The command, and its subcommand if there is one ("import fio").
	var cmd *cli.Command
	commands, at := app.Commands, 1
	for at < len(args) {
		var found *cli.Command
		for _, c := range commands {
			if c.HasName(args[at]) {
				found = c
			}
		}
		if found == nil {
			break
		}
		cmd, commands = found, found.Subcommands
		at++
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, rest []string
	for i := at; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if takesValue[name] && !strings.Contains(name, "=") && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	out := append(slices.Clone(args[:at]), flags...)
	return append(out, rest...)
}
