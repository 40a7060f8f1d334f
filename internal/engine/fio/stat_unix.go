//go:build unix

package fio

import (
	"os"
	"syscall"
)

// links is a file's count of hard links; 0 when it cannot be told.
func links(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 0
}
