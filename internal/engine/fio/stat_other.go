//go:build !unix

package fio

import "os"

// links is a file's count of hard links: 0, ptsrun cannot tell here.
func links(os.FileInfo) int { return 0 }
