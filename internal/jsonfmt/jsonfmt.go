package jsonfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Marshal returns v as JSON laid out as the package says, ending in a
// newline. The values are json.Marshal's, to the byte.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Format(b)
}

// Format lays out a JSON document (compact or not) as the package says.
func Format(src []byte) ([]byte, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, src); err != nil {
		return nil, fmt.Errorf("jsonfmt: %w", err)
	}
	b := c.Bytes()
	cs := containers(b)
	k := 0 // the next container of cs
	out := make([]byte, 0, len(b)+len(b)/4)
	depth := 0
	newline := func() {
		out = append(out, '\n')
		for range depth {
			out = append(out, ' ', ' ')
		}
	}
	line := -1 // the end of the one-line container being written, if any
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case ch == '"':
			j := stringEnd(b, i)
			out = append(out, b[i:j]...)
			i = j - 1
		case i <= line:
			// On one line: a space after each colon and comma.
			out = append(out, ch)
			if ch == ',' || ch == ':' {
				out = append(out, ' ')
			}
		case ch == '{' || ch == '[':
			c := cs[k]
			k++
			out = append(out, ch)
			if c.leaf {
				line = c.close
				continue
			}
			depth++
			newline()
		case ch == '}' || ch == ']':
			depth--
			newline()
			out = append(out, ch)
		case ch == ',':
			out = append(out, ',')
			newline()
		case ch == ':':
			out = append(out, ':', ' ')
		default:
			out = append(out, ch)
		}
	}
	return append(out, '\n'), nil
}

// container is an object or array of compact JSON: where it closes, and
// whether it holds no container.
type container struct {
	close int
	leaf  bool
}

// containers returns the containers of compact JSON in the order they open.
func containers(b []byte) []container {
	var cs []container
	var open []int // indexes into cs
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i) - 1
		case '{', '[':
			if n := len(open); n > 0 {
				cs[open[n-1]].leaf = false
			}
			open = append(open, len(cs))
			cs = append(cs, container{leaf: true})
		case '}', ']':
			n := len(open) - 1
			cs[open[n]].close = i
			open = open[:n]
		}
	}
	return cs
}

// stringEnd returns the index just past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}
