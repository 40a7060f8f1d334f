package units

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatSize writes a block size the PTS way: binary units, 0.5 KiB for 512 B.
func FormatSize(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0 && b < 64<<20 && b != 1<<20:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1024 && b%1024 == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	case b%512 == 0:
		return fmt.Sprintf("%g KiB", float64(b)/1024)
	}
	return fmt.Sprintf("%d B", b)
}

// Block sizes are written in KiB, as the PTS writes them, in three forms made
// by one rule (whole KiB, else the fraction: 0.5): FormatSize's "4 KiB" for
// people, SizeLabel's "4KiB" for tables and CSV, SizeKey's "4k" for cell keys,
// stage IDs and flags.

// SizeLabel writes a block size for tables: "4KiB", "0.5KiB".
func SizeLabel(b int64) string { return kib(b) + "KiB" }

// SizeKey writes a block size for keys and flags: "4k", "0.5k".
func SizeKey(b int64) string { return kib(b) + "k" }

func kib(b int64) string {
	if b%1024 == 0 {
		return strconv.FormatInt(b/1024, 10)
	}
	return strconv.FormatFloat(float64(b)/1024, 'g', -1, 64)
}

// ParseSize reads a size: "512", "4k", "4KiB", "0.5k", "1m", "1MiB", "128K",
// "2g". Units are binary (k = 1024), as the PTS writes block sizes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	t = strings.TrimSuffix(t, "b")
	t = strings.TrimSuffix(t, "i")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1<<10, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1<<20, strings.TrimSuffix(t, "m")
	case strings.HasSuffix(t, "g"):
		mult, t = 1<<30, strings.TrimSuffix(t, "g")
	case strings.HasSuffix(t, "t"):
		mult, t = 1<<40, strings.TrimSuffix(t, "t")
	}
	t = strings.TrimSpace(t)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q is not a number with an optional unit (512, 4k, 1MiB)", s)
	}
	v := f * float64(mult)
	if v <= 0 || v != float64(int64(v)) || v > 1<<62 {
		return 0, fmt.Errorf("size %q is not a positive whole number of bytes", s)
	}
	return int64(v), nil
}
