// Package cpuhog keeps the host's CPUs busy, so that a test can be run the
// way CI runs it: on a loaded two-core machine. A test that holds only on a
// quiet machine is a timing assertion in disguise; with a hog beside it,
// such a test fails on purpose instead of by chance.
//
// Each hog is a process of its own (the running binary again, which spins
// in this package's init before its main), so that it competes with the
// test for the CPUs as another program would, not as a goroutine the Go
// scheduler could favour the test over.
//
// In a test:
//
//	cpuhog.T(t, 0) // one busy process per CPU until the test ends
//
// Around a whole command (the suite, say):
//
//	go run ./internal/cpuhog/cmd/cpuhog -- go test -count=1 ./...
package cpuhog
