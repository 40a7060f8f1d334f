package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Version is a fio version.
type Version struct {
	Major, Minor, Patch int
	Raw                 string
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVersion reads "fio-3.33", "fio-2.2.10", "3.36-23-gabcdef".
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("no fio version in %q", s)
	}
	v := Version{Raw: s}
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}

// AtLeast reports whether v ≥ major.minor.
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Latency is one latency object of fio's output, in nanoseconds.
type Latency struct {
	Min, Max, Mean, Stddev float64
	N                      int64
	Percentiles            map[float64]float64 // percentile → ns
	Bins                   map[int64]int64     // ns → count (json+)
}

// Dir is one direction (read, write, trim) of a job.
type Dir struct {
	Bytes    int64
	IOs      int64
	IOPS     float64
	BWBytes  float64 // bytes/s
	Runtime  time.Duration
	Lat      Latency // total latency (submission + completion)
	Clat     Latency // completion latency
	HasLat   bool
	HasClat  bool
	ShortIOs int64
}

// Job is one entry of jobs[] or client_stats[].
type Job struct {
	Name       string
	GroupID    int
	Error      int
	Host       string
	Port       int
	Options    map[string]string
	Read       Dir
	Write      Dir
	Trim       Dir
	JobRuntime time.Duration
	UsrCPU     float64 // percent
	SysCPU     float64
	// MaxDepth is the lower bound of the highest non-empty bucket of fio's
	// iodepth_level (the depth at each submission: 1, 2, 4, … ">=64"); 0
	// when fio printed none.
	MaxDepth int
}

// Output is one fio run's result.
type Output struct {
	Version      Version
	Jobs         []Job
	ClientServer bool
	Global       map[string]string
	// Messages are the lines fio printed outside its JSON that look like
	// errors or warnings ("fio: …", "…error…").
	Messages []string
	// Time is when fio wrote the output (its "timestamp"); zero if absent.
	Time time.Time
}

type rawLat struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	Stddev     float64            `json:"stddev"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
	Bins       map[string]int64   `json:"bins"`
}

type rawDir struct {
	IOBytes  *int64   `json:"io_bytes"`
	IOKBytes *int64   `json:"io_kbytes"`
	BWBytes  *float64 `json:"bw_bytes"`
	BW       float64  `json:"bw"`
	IOPS     float64  `json:"iops"`
	Runtime  float64  `json:"runtime"`
	TotalIOs *int64   `json:"total_ios"`
	ShortIOs int64    `json:"short_ios"`
	LatNs    *rawLat  `json:"lat_ns"`
	ClatNs   *rawLat  `json:"clat_ns"`
	Lat      *rawLat  `json:"lat"`
	Clat     *rawLat  `json:"clat"`
}

type rawJob struct {
	JobName    string            `json:"jobname"`
	GroupID    int               `json:"groupid"`
	Error      int               `json:"error"`
	Hostname   string            `json:"hostname"`
	Port       int               `json:"port"`
	Options    map[string]any    `json:"job options"`
	Read       *rawDir           `json:"read"`
	Write      *rawDir           `json:"write"`
	Trim       *rawDir           `json:"trim"`
	Mixed      *rawDir           `json:"mixed"`
	JobRuntime float64           `json:"job_runtime"`
	UsrCPU     float64           `json:"usr_cpu"`
	SysCPU     float64           `json:"sys_cpu"`
	Depth      map[string]any    `json:"iodepth_level"`
	Extra      map[string]string `json:"-"`
}

type rawDoc struct {
	Version     string          `json:"fio version"`
	Timestamp   int64           `json:"timestamp"`
	TimestampMs int64           `json:"timestamp_ms"`
	Jobs        []rawJob        `json:"jobs"`
	Clients     []rawJob        `json:"client_stats"`
	Global      json.RawMessage `json:"global options"`
}

// ErrNoJSON is returned when fio's output holds no JSON document.
var ErrNoJSON = errors.New("no JSON document in fio output")

// sanitize replaces the bare nan and inf tokens fio prints (-nan, nan, inf,
// -inf) outside strings with null.
func sanitize(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b))
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			out.WriteByte(c)
			continue
		}
		if c == '-' || c == 'n' || c == 'N' || c == 'i' || c == 'I' {
			j := i
			if b[j] == '-' {
				j++
			}
			for _, tok := range []string{"nan", "inf"} {
				if j+3 <= len(b) && strings.EqualFold(string(b[j:j+3]), tok) && (j+3 == len(b) || !isIdent(b[j+3])) {
					out.WriteString("null")
					i = j + 2
					goto next
				}
			}
		}
		out.WriteByte(c)
	next:
	}
	return out.Bytes()
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// Parse reads fio output: any text before the first JSON document, and one or
// more documents (status dumps are cumulative: the last one is the result).
func Parse(r io.Reader) (*Output, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = sanitize(data)
	var last *rawDoc
	at := 0
	for {
		i := bytes.IndexByte(data[at:], '{')
		if i < 0 {
			break
		}
		dec := json.NewDecoder(bytes.NewReader(data[at+i:]))
		dec.UseNumber()
		var doc rawDoc
		if err := dec.Decode(&doc); err != nil {
			if last != nil {
				break // trailing text after the last document
			}
			line := 1 + bytes.Count(data[:at+i], []byte("\n"))
			return nil, fmt.Errorf("fio output: JSON from line %d: %w", line, err)
		}
		if doc.Version != "" || doc.Jobs != nil || doc.Clients != nil {
			d := doc
			last = &d
		}
		at += i + int(dec.InputOffset())
	}
	if last == nil {
		return nil, ErrNoJSON
	}
	out, err := convert(last)
	if err != nil {
		return nil, err
	}
	out.Messages = messages(data)
	return out, nil
}

// messages collects the error-like lines outside the JSON documents.
func messages(data []byte) []string {
	var out []string
	depth := 0
	inStr, esc := false, false
	var line []byte
	flush := func() {
		l := strings.TrimSpace(string(line))
		low := strings.ToLower(l)
		if l != "" && (strings.Contains(low, "fio:") || strings.Contains(low, "error") || strings.Contains(low, "failed")) {
			out = append(out, l)
		}
		line = line[:0]
	}
	for _, c := range data {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case depth > 0:
			switch c {
			case '"':
				inStr = true
			case '{':
				depth++
			case '}':
				depth--
			}
		case c == '{':
			flush()
			depth = 1
		case c == '\n':
			flush()
		default:
			line = append(line, c)
		}
	}
	flush()
	return out
}

func convert(doc *rawDoc) (*Output, error) {
	out := &Output{Global: map[string]string{}}
	switch {
	case doc.TimestampMs > 0:
		out.Time = time.UnixMilli(doc.TimestampMs).UTC()
	case doc.Timestamp > 0:
		out.Time = time.Unix(doc.Timestamp, 0).UTC()
	}
	if doc.Version != "" {
		v, err := ParseVersion(doc.Version)
		if err != nil {
			return nil, err
		}
		out.Version = v
	}
	if len(doc.Global) > 0 {
		var m map[string]any
		if json.Unmarshal(doc.Global, &m) == nil {
			for k, v := range m {
				out.Global[k] = fmt.Sprint(v)
			}
		}
		// Client/server prints an array of per-client global options.
	}
	raws := doc.Jobs
	if doc.Clients != nil {
		out.ClientServer = true
		raws = doc.Clients
	}
	for i, rj := range raws {
		if rj.JobName == "All clients" {
			continue // fio's own aggregate; ptsrun merges bins itself
		}
		j := Job{Name: rj.JobName, GroupID: rj.GroupID, Error: rj.Error, Host: rj.Hostname, Port: rj.Port,
			Options: map[string]string{}, JobRuntime: time.Duration(rj.JobRuntime * float64(time.Millisecond)),
			UsrCPU: rj.UsrCPU, SysCPU: rj.SysCPU, MaxDepth: maxDepth(rj.Depth)}
		for k, v := range rj.Options {
			j.Options[k] = fmt.Sprint(v)
		}
		var err error
		for _, d := range []struct {
			raw *rawDir
			dst *Dir
			nm  string
		}{{rj.Read, &j.Read, "read"}, {rj.Write, &j.Write, "write"}, {rj.Trim, &j.Trim, "trim"}, {rj.Mixed, &j.Read, "mixed"}} {
			if d.raw == nil {
				continue
			}
			if *d.dst, err = convertDir(d.raw, out.Version); err != nil {
				return nil, fmt.Errorf("fio output: job %d (%s) %s: %w", i, rj.JobName, d.nm, err)
			}
		}
		out.Jobs = append(out.Jobs, j)
	}
	return out, nil
}

func convertLat(r *rawLat, scale float64) (Latency, error) {
	l := Latency{Min: r.Min * scale, Max: r.Max * scale, Mean: r.Mean * scale, Stddev: r.Stddev * scale, N: r.N}
	if len(r.Percentile) > 0 {
		l.Percentiles = map[float64]float64{}
		for k, v := range r.Percentile {
			p, err := strconv.ParseFloat(k, 64)
			if err != nil {
				return l, fmt.Errorf("percentile key %q: %w", k, err)
			}
			l.Percentiles[p] = v * scale
		}
	}
	if len(r.Bins) > 0 {
		l.Bins = map[int64]int64{}
		for k, v := range r.Bins {
			x, err := strconv.ParseFloat(k, 64)
			if err != nil || x < 0 || math.IsInf(x, 0) {
				return l, fmt.Errorf("histogram bin %q is not a latency", k)
			}
			if v < 0 {
				return l, fmt.Errorf("histogram bin %q has a negative count", k)
			}
			l.Bins[int64(x*scale)] += v
		}
	}
	return l, nil
}

func convertDir(r *rawDir, v Version) (Dir, error) {
	var d Dir
	switch {
	case r.IOBytes != nil && (v.Major == 0 || v.AtLeast(2, 21)):
		d.Bytes = *r.IOBytes
	case r.IOKBytes != nil:
		d.Bytes = *r.IOKBytes * 1024
	case r.IOBytes != nil: // before fio 2.21, io_bytes was in KiB
		d.Bytes = *r.IOBytes * 1024
	}
	d.IOPS = r.IOPS
	d.Runtime = time.Duration(r.Runtime * float64(time.Millisecond))
	if r.BWBytes != nil {
		d.BWBytes = *r.BWBytes
	} else {
		d.BWBytes = r.BW * 1024
	}
	d.ShortIOs = r.ShortIOs
	var err error
	switch {
	case r.LatNs != nil:
		d.Lat, err = convertLat(r.LatNs, 1)
		d.HasLat = true
	case r.Lat != nil: // fio < 3.0: microseconds
		d.Lat, err = convertLat(r.Lat, 1000)
		d.HasLat = true
	}
	if err != nil {
		return d, err
	}
	switch {
	case r.ClatNs != nil:
		d.Clat, err = convertLat(r.ClatNs, 1)
		d.HasClat = true
	case r.Clat != nil:
		d.Clat, err = convertLat(r.Clat, 1000)
		d.HasClat = true
	}
	if err != nil {
		return d, err
	}
	switch {
	case r.TotalIOs != nil:
		d.IOs = *r.TotalIOs
	case d.HasLat && d.Lat.N > 0:
		d.IOs = d.Lat.N
	default:
		d.IOs = int64(math.Round(r.IOPS * r.Runtime / 1000))
	}
	return d, nil
}

// Stats turns a direction into engine statistics: exact counts, the mean from
// fio's mean × N, the extremes (of the total latency, of the completion
// latency when fio gave only that), and the percentiles of the total latency
// when fio gave them (lat_percentiles=1), else of the completion latency:
// from the json+ bins as a histogram, else as fio printed them.
func (d Dir) Stats() engine.DirStats {
	var s engine.DirStats
	if d.IOs == 0 {
		return s
	}
	l := d.Clat
	if d.HasLat {
		l = d.Lat
	}
	s.IOs = d.IOs
	s.Bytes = d.Bytes
	s.LatMinNs = int64(l.Min)
	s.LatMaxNs = int64(l.Max)
	s.LatSumNs = l.Mean * float64(d.IOs)
	p, kind := d.Clat, engine.LatCompletion
	if d.HasLat && (len(d.Lat.Bins) > 0 || len(d.Lat.Percentiles) > 0 && len(d.Clat.Bins) == 0) {
		p, kind = d.Lat, ""
	}
	switch {
	case len(p.Bins) > 0:
		s.Hist = engine.NewHistogram()
		keys := make([]int64, 0, len(p.Bins))
		for k := range p.Bins {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
		for _, k := range keys {
			s.Hist.RecordN(k, p.Bins[k])
		}
		s.PctLat = kind
	case len(p.Percentiles) > 0:
		for q, ns := range p.Percentiles {
			s.Printed = append(s.Printed, engine.PrintedPct{P: q, Ns: ns})
		}
		sort.Slice(s.Printed, func(a, b int) bool { return s.Printed[a].P < s.Printed[b].P })
		s.PctLat = kind
	}
	return s
}

// Elapsed is the longer of the directions' run times.
func (j Job) Elapsed() time.Duration { return max(j.Read.Runtime, j.Write.Runtime, j.Trim.Runtime) }

// maxDepth reads fio's iodepth_level, the share of submissions per depth
// bucket keyed "1", "2", "4" … ">=64", into the lower bound of the highest
// non-empty one.
func maxDepth(levels map[string]any) int {
	best := 0
	for k, v := range levels {
		var share float64
		switch v := v.(type) {
		case json.Number:
			share, _ = v.Float64()
		case float64:
			share = v
		}
		if share <= 0 {
			continue
		}
		d, err := strconv.Atoi(strings.TrimPrefix(k, ">="))
		if err == nil && d > best {
			best = d
		}
	}
	return best
}
