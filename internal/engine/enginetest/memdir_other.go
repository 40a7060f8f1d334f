//go:build !linux

package enginetest

import "testing"

// InMemory runs the tests: only Linux's /dev/shm is known to be a tmpfs.
func InMemory(m *testing.M) int { return m.Run() }
