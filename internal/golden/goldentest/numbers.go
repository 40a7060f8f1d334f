package goldentest

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Digits is the precision of the numbers in golden JSON and CSV files, in
// significant digits. Full precision breaks a golden on the last bit of a
// sum taken in another order and buries a real change in noise; eight
// digits keep every difference worth a review (1 in 10⁷ and up).
//
// Numbers are never rounded before they are compared: the
// golden holds the rounded number, and the output agrees with it when it is
// within one unit of its last digit. Integers (counts, bytes, nanoseconds)
// are written and compared exactly.
const Digits = 8

// tiny is the difference below which two numbers always agree: noise
// around zero, such as the slope of a flat series.
const tiny = 1e-12

// JSON compares a JSON document with the golden file at path, in the
// golden format: numbers at Digits significant digits, keys in the order
// written, and each "lat_hist" histogram (a base64 HdrHistogram blob no
// one can review) replaced by its summary: count, bins, lowest and highest
// latency, the percentiles the PTS reports and a fingerprint of every bin.
// Numbers compare as Digits says; everything else exactly. On a mismatch
// the output, in the golden format, is written beside the golden as
// path.actual and the failure lists the values that differ.
func JSON(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	v, err := parseJSON(got)
	require.NoError(t, err, "the output is not JSON")
	v, err = summarize(v)
	require.NoError(t, err)
	var b bytes.Buffer
	writeJSON(&b, v, "")
	b.WriteByte('\n')
	compare(t, path, b.Bytes(), update, func(want []byte) ([]string, error) {
		w, err := parseJSON(want)
		if err != nil {
			return nil, err
		}
		var diffs []string
		diffJSON("", w, v, &diffs)
		return diffs, nil
	})
}

// CSV compares a CSV table with the golden file at path, its numbers at
// Digits significant digits and compared as Digits says, as JSON does.
func CSV(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(got)).ReadAll()
	require.NoError(t, err, "the output is not CSV")
	for _, r := range rows {
		for j, f := range r {
			if n := json.Number(f); isNumber(f) {
				r[j] = string(round(n))
			}
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	require.NoError(t, w.WriteAll(rows))
	compare(t, path, b.Bytes(), update, func(want []byte) ([]string, error) {
		wrows, err := csv.NewReader(bytes.NewReader(want)).ReadAll()
		if err != nil {
			return nil, err
		}
		return diffCSV(wrows, rows), nil
	})
}

// compare checks got against the golden at path, rewriting it first with
// update. Equal bytes pass; otherwise differ says what differs, and nothing
// (numbers within their last digit) passes too.
func compare(t testing.TB, path string, got []byte, update bool, differ func(want []byte) ([]string, error)) {
	t.Helper()
	if update {
		writeGolden(t, path, got)
	}
	want := readGolden(t, path)
	if bytes.Equal(want, got) {
		removeActual(t, path)
		return
	}
	diffs, err := differ(want)
	if err == nil && len(diffs) == 0 {
		removeActual(t, path)
		return
	}
	actual := writeActual(t, path, got)
	if err != nil {
		diffs = []string{fmt.Sprintf("the golden cannot be read: %v", err)}
	}
	const most = 20
	more, n := "", len(diffs)
	if len(diffs) > most {
		more = fmt.Sprintf("\n  … and %d more", len(diffs)-most)
		diffs = diffs[:most]
	}
	t.Errorf("%s: %d values differ (numbers at %d significant digits):\n  %s%s\n%s",
		path, n, Digits, strings.Join(diffs, "\n  "), more, howToReview(path, actual))
}

// isNumber reports whether a CSV field is a JSON-style number.
func isNumber(f string) bool {
	_, err := strconv.ParseFloat(f, 64)
	return err == nil && f != "" && strings.IndexFunc(f, func(r rune) bool {
		return !strings.ContainsRune("0123456789.eE+-", r)
	}) < 0
}

func isInteger(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

// round writes a number at Digits significant digits; integers as they are.
func round(n json.Number) json.Number {
	f, err := n.Float64()
	if isInteger(n) || err != nil {
		return n
	}
	return json.Number(strconv.FormatFloat(f, 'g', Digits, 64))
}

// agree reports whether two numbers of golden files are the same: exactly
// for two integers, else within one unit of the Digits-th digit.
func agree(a, b json.Number) bool {
	if isInteger(a) && isInteger(b) {
		return a == b
	}
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	if err1 != nil || err2 != nil {
		return a == b
	}
	m := math.Max(math.Abs(x), math.Abs(y))
	unit := math.Pow(10, math.Floor(math.Log10(m))-(Digits-1))
	return math.Abs(x-y) <= math.Max(1.01*unit, tiny)
}

// member and object keep a JSON object's keys in order.
type member struct {
	key   string
	value any
}

type object []member

func parseJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		o := object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k.(string), v})
		}
		_, err = dec.Token()
		return o, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// summarize rounds every number and replaces each lat_hist histogram by
// its summary.
func summarize(v any) (any, error) {
	switch v := v.(type) {
	case object:
		for i, m := range v {
			if s, ok := m.value.(string); ok && m.key == "lat_hist" {
				h, err := histSummary(s)
				if err != nil {
					return nil, fmt.Errorf("lat_hist: %w", err)
				}
				v[i].value = h
				continue
			}
			s, err := summarize(m.value)
			if err != nil {
				return nil, err
			}
			v[i].value = s
		}
	case []any:
		for i, x := range v {
			s, err := summarize(x)
			if err != nil {
				return nil, err
			}
			v[i] = s
		}
	case json.Number:
		return round(v), nil
	}
	return v, nil
}

// histSummary is what a review needs of a histogram: how many latencies,
// in how many bins, from where to where, its percentiles, and a
// fingerprint of its bins that changes when any bin does.
func histSummary(enc string) (object, error) {
	var h engine.Histogram
	if err := json.Unmarshal([]byte(strconv.Quote(enc)), &h); err != nil {
		return nil, err
	}
	num := func(v int64) json.Number { return json.Number(strconv.FormatInt(v, 10)) }
	bins := h.Bins()
	sum := sha256.New()
	for _, b := range bins {
		fmt.Fprintf(sum, "%d %d %d\n", b.LowNs, b.HighNs, b.Count)
	}
	o := object{{"count", num(h.Count())}, {"bins", num(int64(len(bins)))}}
	if len(bins) > 0 {
		o = append(o, member{"min_ns", num(bins[0].LowNs)}, member{"max_ns", num(bins[len(bins)-1].HighNs)})
	}
	for _, p := range []struct {
		name string
		p    float64
	}{{"p50_ns", 50}, {"p99_ns", 99}, {"p99_99_ns", 99.99}, {"p99_999_ns", 99.999}} {
		o = append(o, member{p.name, num(h.Percentile(p.p))})
	}
	return append(o, member{"bins_sha256", hex.EncodeToString(sum.Sum(nil))[:16]}), nil
}

// writeJSON writes v indented by two spaces, as json.MarshalIndent does.
func writeJSON(b *bytes.Buffer, v any, indent string) {
	in := indent + "  "
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range v {
			k, _ := json.Marshal(m.key)
			b.WriteString(in + string(k) + ": ")
			writeJSON(b, m.value, in)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(in)
			writeJSON(b, x, in)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case json.Number:
		b.WriteString(string(v))
	default:
		s, _ := json.Marshal(v)
		b.Write(s)
	}
}

// diffJSON lists where got differs from want, by path; array elements are
// named by their key, id, test or name where they have one.
func diffJSON(path string, want, got any, out *[]string) {
	switch w := want.(type) {
	case object:
		g, ok := got.(object)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: an object in the golden, %s now", orRoot(path), brief(got)))
			return
		}
		for _, m := range w {
			if gv, ok := g.get(m.key); ok {
				diffJSON(path+"."+m.key, m.value, gv, out)
			} else {
				*out = append(*out, fmt.Sprintf("%s.%s: gone (golden %s)", path, m.key, brief(m.value)))
			}
		}
		for _, m := range g {
			if _, ok := w.get(m.key); !ok {
				*out = append(*out, fmt.Sprintf("%s.%s: new, %s", path, m.key, brief(m.value)))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, fmt.Sprintf("%s: golden %s, now %s", orRoot(path), brief(want), brief(got)))
			return
		}
		for i := range w {
			diffJSON(fmt.Sprintf("%s[%s]", path, label(i, w[i])), w[i], g[i], out)
		}
	case json.Number:
		if g, ok := got.(json.Number); !ok || !agree(w, g) {
			*out = append(*out, fmt.Sprintf("%s: golden %s, now %s", orRoot(path), brief(want), brief(got)))
		}
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) || fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
			*out = append(*out, fmt.Sprintf("%s: golden %s, now %s", orRoot(path), brief(want), brief(got)))
		}
	}
}

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

func label(i int, v any) string {
	if o, ok := v.(object); ok {
		for _, k := range []string{"key", "id", "test", "name"} {
			if s, ok := o.get(k); ok {
				if s, ok := s.(string); ok && s != "" {
					return s
				}
			}
		}
	}
	return strconv.Itoa(i)
}

func orRoot(path string) string {
	if path == "" {
		return "(the document)"
	}
	return path
}

// brief is a value as a failure message shows it.
func brief(v any) string {
	switch v := v.(type) {
	case object:
		return fmt.Sprintf("an object of %d keys", len(v))
	case []any:
		return fmt.Sprintf("%d items", len(v))
	case json.Number:
		return string(v)
	}
	s, _ := json.Marshal(v)
	if len(s) > 80 {
		return string(s[:77]) + "…"
	}
	return string(s)
}

// diffCSV lists the cells where got differs from want, by row and column
// name.
func diffCSV(want, got [][]string) []string {
	if len(want) != len(got) {
		return []string{fmt.Sprintf("%d rows in the golden, %d now", len(want), len(got))}
	}
	var out []string
	for i := range want {
		if len(want[i]) != len(got[i]) {
			out = append(out, fmt.Sprintf("row %d: %d columns in the golden, %d now", i+1, len(want[i]), len(got[i])))
			continue
		}
		for j := range want[i] {
			w, g := want[i][j], got[i][j]
			if w == g || isNumber(w) && isNumber(g) && agree(json.Number(w), json.Number(g)) {
				continue
			}
			where := fmt.Sprintf("row %d, column %d", i+1, j+1)
			if i > 0 && len(want[0]) > j && len(want[i]) > 0 {
				where = fmt.Sprintf("row %s, column %s", want[i][0], want[0][j])
			}
			out = append(out, fmt.Sprintf("%s: golden %s, now %s", where, w, g))
		}
	}
	return out
}
