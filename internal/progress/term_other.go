//go:build !linux

package progress

import "os"

// A character device is taken for a terminal where there is no TCGETS.
func fileIsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminalWidth is unknown here: 0.
func terminalWidth(*os.File) int { return 0 }
