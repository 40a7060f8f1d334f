package pdfreport

import (
	"os"
	"testing"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// The tests write simulated runs' directories, nothing that needs a disk:
// in memory, where the journal's syncs cost nothing (enginetest.InMemory).
func TestMain(m *testing.M) { os.Exit(enginetest.InMemory(m)) }
