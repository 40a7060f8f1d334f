package native

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The engines share one target type; native does I/O on this host only,
// and refuses a target of a fio server before it opens anything.
func TestNativeRefusesAFioServersTarget(t *testing.T) {
	_, err := Open([]Target{{Name: "h1:8765=/dev/sdb", Path: "/dev/sdb", Server: "h1:8765"}}, Options{})
	assert.EqualError(t, err, "native engine: target h1:8765=/dev/sdb is on the fio server h1:8765: the native engine does I/O on this host only")
}
