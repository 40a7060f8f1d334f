package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Series is a measurement's series, one Second per interval. In JSON it is
// kept by column: one array per field, each as long as the series,
//
//	{"n":3,"r_ios":[…],"w_ios":[…],"r_bytes":[…],"w_bytes":[…],"lat_mean_ns":[…],
//	 "r_lat":{"mean_ns":[…],"p99_ns":[…],"p99_9_ns":[…],"max_ns":[…]},"w_lat":{…},"ramp":[0]}
//
// because a journal holds a series for every cell and the names of an
// object per interval were most of its bytes (all eight tests on the
// simulated drive: 25 of a 43 MB journal). It is the same figures, to the
// last bit: a latency's mean is null in an interval without that
// direction's latency (Second.Read nil), "of" is there only when an
// interval's latency is not of the whole I/O, and "ramp" lists the ramp's
// intervals. A series written as an array of intervals, as journals before
// it were, is read as well.
type Series []Second

// seriesColumns is Series in JSON.
type seriesColumns struct {
	N          int         `json:"n"`
	ReadIOs    []int64     `json:"r_ios"`
	WriteIOs   []int64     `json:"w_ios"`
	ReadBytes  []int64     `json:"r_bytes"`
	WriteBytes []int64     `json:"w_bytes"`
	LatMeanNs  []float64   `json:"lat_mean_ns"`
	Read       *latColumns `json:"r_lat,omitempty"`
	Write      *latColumns `json:"w_lat,omitempty"`
	Ramp       []int       `json:"ramp,omitempty"`
}

// latColumns is one direction's IntervalLat by column: MeanNs null where
// the interval has none.
type latColumns struct {
	MeanNs []*float64 `json:"mean_ns"`
	P99Ns  []int64    `json:"p99_ns"`
	P999Ns []int64    `json:"p99_9_ns"`
	MaxNs  []int64    `json:"max_ns"`
	Of     []string   `json:"of,omitempty"`
}

// MarshalJSON writes s by column. Its numbers are written as encoding/json
// writes them, so that they read back to the same bits.
func (s Series) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 64+len(s)*96)
	b = append(b, `{"n":`...)
	b = strconv.AppendInt(b, int64(len(s)), 10)
	// column writes ,"name":[…] with each(i) writing interval i's value;
	// the first column of an object (sep "") has no comma before it.
	column := func(sep, name string, each func(i int)) {
		b = append(b, sep...)
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":[`...)
		for i := range s {
			if i > 0 {
				b = append(b, ',')
			}
			each(i)
		}
		b = append(b, ']')
	}
	var bad error
	float := func(v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad = fmt.Errorf("series: unsupported value %v", v)
			v = 0
		}
		b = appendFloat(b, v)
	}
	ints := func(name string, f func(*Second) int64) {
		column(",", name, func(i int) { b = strconv.AppendInt(b, f(&s[i]), 10) })
	}
	ints("r_ios", func(x *Second) int64 { return x.ReadIOs })
	ints("w_ios", func(x *Second) int64 { return x.WriteIOs })
	ints("r_bytes", func(x *Second) int64 { return x.ReadBytes })
	ints("w_bytes", func(x *Second) int64 { return x.WriteBytes })
	column(",", "lat_mean_ns", func(i int) { float(s[i].LatMeanNs) })
	lat := func(name string, of func(*Second) *IntervalLat) {
		any, tagged := false, false
		for i := range s {
			if l := of(&s[i]); l != nil {
				any, tagged = true, tagged || l.Of != ""
			}
		}
		if !any {
			return
		}
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":{`...)
		column("", "mean_ns", func(i int) {
			if l := of(&s[i]); l != nil {
				float(l.MeanNs)
			} else {
				b = append(b, "null"...)
			}
		})
		col := func(name string, f func(*IntervalLat) int64) {
			column(",", name, func(i int) {
				var v int64
				if l := of(&s[i]); l != nil {
					v = f(l)
				}
				b = strconv.AppendInt(b, v, 10)
			})
		}
		col("p99_ns", func(l *IntervalLat) int64 { return l.P99Ns })
		col("p99_9_ns", func(l *IntervalLat) int64 { return l.P999Ns })
		col("max_ns", func(l *IntervalLat) int64 { return l.MaxNs })
		if tagged {
			column(",", "of", func(i int) {
				var v string
				if l := of(&s[i]); l != nil {
					v = l.Of
				}
				q, _ := json.Marshal(v)
				b = append(b, q...)
			})
		}
		b = append(b, '}')
	}
	lat("r_lat", func(x *Second) *IntervalLat { return x.Read })
	lat("w_lat", func(x *Second) *IntervalLat { return x.Write })
	first := true
	for i := range s {
		if !s[i].Ramp {
			continue
		}
		if first {
			b = append(b, `,"ramp":[`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(i), 10)
	}
	if !first {
		b = append(b, ']')
	}
	b = append(b, '}')
	if bad != nil {
		return nil, bad
	}
	return b, nil
}

// appendFloat writes v as encoding/json does: the shortest decimal that
// reads back to v, in exponent form only when very large or small.
func appendFloat(b []byte, v float64) []byte {
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, v, format, -1, 64)
}

// UnmarshalJSON reads a series by column, or as an array of intervals.
func (s *Series) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*s = nil
		return nil
	case len(data) > 0 && data[0] == '[':
		var rows []Second
		if err := json.Unmarshal(data, &rows); err != nil {
			return err
		}
		*s = rows
		return nil
	}
	var c seriesColumns
	if err := json.Unmarshal(data, &c); err != nil {
		return err
	}
	n := c.N
	if n < 0 {
		return fmt.Errorf("series: n %d", n)
	}
	for _, col := range []struct {
		name string
		len  int
	}{{"r_ios", len(c.ReadIOs)}, {"w_ios", len(c.WriteIOs)}, {"r_bytes", len(c.ReadBytes)}, {"w_bytes", len(c.WriteBytes)}, {"lat_mean_ns", len(c.LatMeanNs)}} {
		if col.len != n {
			return fmt.Errorf("series: %s has %d intervals, not n %d", col.name, col.len, n)
		}
	}
	for _, l := range []struct {
		name string
		c    *latColumns
	}{{"r_lat", c.Read}, {"w_lat", c.Write}} {
		if l.c == nil {
			continue
		}
		if len(l.c.MeanNs) != n || len(l.c.P99Ns) != n || len(l.c.P999Ns) != n || len(l.c.MaxNs) != n || (l.c.Of != nil && len(l.c.Of) != n) {
			return fmt.Errorf("series: %s's columns are not all %d intervals long", l.name, n)
		}
	}
	out := make(Series, n)
	for i := range out {
		out[i] = Second{ReadIOs: c.ReadIOs[i], WriteIOs: c.WriteIOs[i], ReadBytes: c.ReadBytes[i], WriteBytes: c.WriteBytes[i],
			LatMeanNs: c.LatMeanNs[i], Read: c.Read.at(i), Write: c.Write.at(i)}
	}
	for _, i := range c.Ramp {
		if i < 0 || i >= n {
			return fmt.Errorf("series: ramp interval %d of %d", i, n)
		}
		out[i].Ramp = true
	}
	if n == 0 {
		out = Series{}
	}
	*s = out
	return nil
}

// at is interval i's latency, nil where it has none.
func (l *latColumns) at(i int) *IntervalLat {
	if l == nil || l.MeanNs[i] == nil {
		return nil
	}
	x := &IntervalLat{MeanNs: *l.MeanNs[i], P99Ns: l.P99Ns[i], P999Ns: l.P999Ns[i], MaxNs: l.MaxNs[i]}
	if l.Of != nil {
		x.Of = l.Of[i]
	}
	return x
}
