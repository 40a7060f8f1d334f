package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Compact is a Reading as a run's journal keeps it: the source most of its
// figures come from is said once ("source"), each of those figures is its
// bare value ("temperature_c":41), and a figure from another source keeps
// its {"value","source"} object. A run journals a
// reading at every sample and most figures come from one source, so that
// the names repeated in every figure were about half of each reading (a
// simulated qualification's 5 792 readings: 7.5 MB of its 29 MB journal).
// It reads both forms, so that older journals still read. A figure not
// known is left out, as in a Reading.
type Compact Reading

// readingField is one JSON member of a Reading: its name and whether it is
// a Field (else Device or Sources, written as they are).
type readingField struct {
	index int
	name  string
	field bool
	omit  bool // omitempty or omitzero
}

var readingFields = func() []readingField {
	t := reflect.TypeFor[Reading]()
	known := reflect.TypeFor[interface{ Known() bool }]()
	var out []readingField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, readingField{index: i, name: name, field: f.Type.Implements(known),
			omit: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")})
	}
	return out
}()

// MarshalJSON writes the compact form.
func (c Compact) MarshalJSON() ([]byte, error) {
	r := Reading(c)
	v := reflect.ValueOf(r)
	// The source of the most figures (the first of those tied, in field
	// order): its figures go bare.
	count := map[string]int{}
	def := ""
	for _, f := range readingFields {
		if fv := v.Field(f.index); f.field && fv.Interface().(interface{ Known() bool }).Known() {
			src := fv.FieldByName("Source").String()
			if count[src]++; count[src] > count[def] {
				def = src
			}
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	if def != "" {
		src, _ := json.Marshal(def)
		b.WriteString(`"source":`)
		b.Write(src)
		first = false
	}
	for _, f := range readingFields {
		fv := v.Field(f.index)
		var val any = fv.Interface()
		if f.field {
			fl := fv.Interface().(interface{ Known() bool })
			if !fl.Known() {
				continue
			}
			if fv.FieldByName("Source").String() == def {
				val = fv.FieldByName("Value").Interface()
			}
		} else if f.omit && (fv.IsZero() || fv.Kind() == reflect.Slice && fv.Len() == 0) {
			continue
		}
		enc, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("telemetry: %s of %s: %w", f.name, r.Device, err)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		name, _ := json.Marshal(f.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads either form: an object with a "source" member is a
// whole Field (no figure's value has one), anything else a bare value from
// the reading's "source".
func (c *Compact) UnmarshalJSON(data []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return fmt.Errorf("telemetry: a journaled reading: %w", err)
	}
	var r Reading
	v := reflect.ValueOf(&r).Elem()
	def := ""
	if raw, ok := members["source"]; ok {
		if err := json.Unmarshal(raw, &def); err != nil || def == "" {
			return fmt.Errorf("telemetry: a journaled reading's source is not a source's name: %s", raw)
		}
	}
	// Device and Sources first: errors name the device.
	for _, f := range readingFields {
		if raw, ok := members[f.name]; ok && !f.field {
			if err := json.Unmarshal(raw, v.Field(f.index).Addr().Interface()); err != nil {
				return fmt.Errorf("telemetry: a journaled reading's %s: %w", f.name, err)
			}
		}
	}
	for _, f := range readingFields {
		raw, ok := members[f.name]
		if !ok || !f.field {
			continue
		}
		fv := v.Field(f.index)
		if whole(raw) {
			if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
				return fmt.Errorf("telemetry: %s of %s: %w", f.name, r.Device, err)
			}
			if fv.FieldByName("Source").String() == "" {
				fv.SetZero() // not known: its value means nothing
			}
			continue
		}
		if def == "" {
			return fmt.Errorf("telemetry: %s of %s is a bare value, but the reading names no source", f.name, r.Device)
		}
		if val := fv.Field(0); !setNumber(raw, val) {
			if err := json.Unmarshal(raw, val.Addr().Interface()); err != nil {
				return fmt.Errorf("telemetry: %s of %s: %w", f.name, r.Device, err)
			}
		}
		fv.Field(1).SetString(def) // Field's Source
	}
	if len(r.Sources) == 0 {
		r.Sources = nil // as omitempty leaves it
	}
	*c = Compact(r)
	return nil
}

// setNumber sets v, a float64 or uint64, to the JSON number raw as
// encoding/json would, and reports whether it did; anything else (another
// kind, null, a number out of range) is left to encoding/json, errors and
// all. Most of a journaled reading's figures are bare numbers, and one
// json.Unmarshal each was most of reading a run's telemetry back. raw is
// a value that encoding/json has checked (a json.RawMessage member).
func setNumber(raw json.RawMessage, v reflect.Value) bool {
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return false
	}
	switch v.Kind() {
	case reflect.Float64:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return false
		}
		v.SetFloat(f)
		return true
	case reflect.Uint64:
		u, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return false
		}
		v.SetUint(u)
		return true
	}
	return false
}

// whole reports whether raw is a Field's {"value","source"} object.
func whole(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var probe struct {
		Source *string `json:"source"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.Source != nil
}
