package telemetry

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
)

// num is a number as the tools print one: a JSON number (integer or
// float, of any size), or a string holding one (nvme-cli prints 64- and
// 128-bit counters as strings, nvme-cli 1.x as "123.000000"). Absent or
// null, it is not known; the same when it is not a number at all.
type num struct {
	v  *big.Float
	ok bool
}

func (n *num) UnmarshalJSON(b []byte) error {
	*n = num{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	s := string(b)
	if b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return nil
		}
		s = strings.TrimSpace(str)
	}
	if s == "" || len(s) > 64 {
		return nil
	}
	// Hex, as some nvme-cli fields are printed; a float's syntax otherwise.
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		i, ok := new(big.Int).SetString(h, 16)
		if !ok {
			return nil
		}
		n.v, n.ok = new(big.Float).SetInt(i), true
		return nil
	}
	f, _, err := big.ParseFloat(s, 10, 256, big.ToNearestEven)
	if err != nil || f.IsInf() {
		return nil
	}
	n.v, n.ok = f, true
	return nil
}

// uint is the value as a whole number that fits in 64 bits.
func (n num) uint() (uint64, bool) {
	if !n.ok || n.v.Sign() < 0 || !n.v.IsInt() {
		return 0, false
	}
	u, acc := n.v.Uint64()
	return u, acc == big.Exact
}

// int is the value as a whole number that fits in 64 bits, signed.
func (n num) int() (int64, bool) {
	if !n.ok || !n.v.IsInt() {
		return 0, false
	}
	i, acc := n.v.Int64()
	return i, acc == big.Exact
}

// mulUint is n × unit, when it is a whole number that fits in 64 bits.
func (n num) mulUint(unit uint64) (uint64, bool) {
	u, ok := n.uint()
	if !ok || unit == 0 {
		return 0, false
	}
	if u > ^uint64(0)/unit {
		return 0, false
	}
	return u * unit, true
}
