package capture

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// fixed reads a non-negative decimal ("12.345678") exactly, as an integer
// of 10^-digits units: fixed("0.5", 9) is 500000000. Digits beyond
// those are cut off.
func fixed(s string, digits int) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || strings.ContainsAny(whole, "+-") || strings.ContainsAny(frac, "+-") {
		return 0, errors.New("not a number")
	}
	w := int64(0)
	if whole != "" {
		var err error
		if w, err = strconv.ParseInt(whole, 10, 64); err != nil {
			return 0, errors.New("not a number")
		}
	}
	scale := int64(1)
	for range digits {
		scale *= 10
	}
	if w > math.MaxInt64/scale {
		return 0, errors.New("too large")
	}
	if len(frac) > digits {
		frac = frac[:digits]
	}
	f := int64(0)
	if frac != "" {
		var err error
		if f, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return 0, errors.New("not a number")
		}
		for range digits - len(frac) {
			f *= 10
		}
	}
	return w*scale + f, nil
}

// count reads a non-negative integer.
func count(s string) (int64, error) {
	if strings.HasPrefix(s, "+") {
		return 0, errors.New("not a number")
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, errors.New("not a non-negative integer")
	}
	return v, nil
}

// isDevNum reports whether s is a device number, "major,minor".
func isDevNum(s string) bool {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return false
	}
	_, err1 := count(a)
	_, err2 := count(b)
	return err1 == nil && err2 == nil
}

// sectorBytes is the unit of blkparse's and biosnoop's sectors.
const sectorBytes = 512

// bytesOfSectors is n sectors in bytes, or an error when that overflows.
func bytesOfSectors(n int64) (int64, error) {
	if n > math.MaxInt64/sectorBytes {
		return 0, errors.New("too large")
	}
	return n * sectorBytes, nil
}
