// Command cpuhog runs a command with one busy process per CPU beside it,
// and exits with the command's status:
//
//	go run ./internal/cpuhog/cmd/cpuhog [-n N] -- go test -count=1 ./...
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/ptsrun/ptsrun/internal/cpuhog"
)

func main() {
	n := flag.Int("n", 0, "busy processes (0: one per CPU)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: cpuhog [-n N] -- COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(1)
	}
	h, err := cpuhog.Start(*n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "cpuhog: %d busy processes beside %q\n", h.Len(), flag.Args())
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		if cmd.Process != nil {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Run()
	h.Stop()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "cpuhog:", err)
		os.Exit(1)
	}
}
