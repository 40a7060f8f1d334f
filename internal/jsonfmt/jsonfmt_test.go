package jsonfmt

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`1`, "1\n"},
		{`"a"`, "\"a\"\n"},
		{`{}`, "{}\n"},
		{`[]`, "[]\n"},
		{`[1,2,3]`, "[1, 2, 3]\n"},
		{`{"a":1,"b":"x"}`, "{\"a\": 1, \"b\": \"x\"}\n"},
		{`{"a":{"b":1},"c":[]}`, "{\n  \"a\": {\"b\": 1},\n  \"c\": []\n}\n"},
		{`{"s":[{"i":1,"v":null},{"i":2,"v":true}],"h":[0,5]}`,
			"{\n  \"s\": [\n    {\"i\": 1, \"v\": null},\n    {\"i\": 2, \"v\": true}\n  ],\n  \"h\": [0, 5]\n}\n"},
		// Brackets, colons, commas and escapes inside strings are text.
		{`{"k{[,:":"v]},\"\\","n":[{"x":"{"}]}`,
			"{\n  \"k{[,:\": \"v]},\\\"\\\\\",\n  \"n\": [\n    {\"x\": \"{\"}\n  ]\n}\n"},
		{` { "a" : [ 1 , 2 ] } `, "{\n  \"a\": [1, 2]\n}\n"},
	} {
		got, err := Format([]byte(tc.in))
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
	_, err := Format([]byte(`{"a":`))
	assert.ErrorContains(t, err, "jsonfmt")
}

// The layout changes whitespace only: the document reads back the same,
// and json.Indent of it is MarshalIndent's.
func TestMarshalKeepsTheValues(t *testing.T) {
	v := map[string]any{"samples": []any{map[string]any{"iops": 464894.13333333336, "idle": false, "lat": nil}},
		"hist": []int{0, 1, 2}, "name": "a <b> & \"c\"", "nested": map[string]any{"deep": []any{[]int{1}, map[string]any{}}}}
	b, err := Marshal(v)
	require.NoError(t, err)
	var back any
	require.NoError(t, json.Unmarshal(b, &back))
	want, _ := json.Marshal(v)
	got, _ := json.Marshal(back)
	assert.JSONEq(t, string(want), string(got))
	indented, _ := json.MarshalIndent(v, "", "  ")
	var buf1, buf2 = compact(t, b), compact(t, indented)
	assert.Equal(t, buf2, buf1, "the same bytes but for whitespace")
}

func compact(t *testing.T, b []byte) string {
	var out []byte
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			out = append(out, c, b[i+1])
			i++
			continue
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\n'):
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func FuzzFormat(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"]"}],"c":"\\"}`, `[[],{}]`, `"x"`, `{"a":1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Format([]byte(s))
		if !json.Valid([]byte(s)) {
			if err == nil {
				t.Fatalf("no error for invalid %q", s)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(got) {
			t.Fatalf("invalid output %q for %q", got, s)
		}
		var a, b any
		_ = json.Unmarshal([]byte(s), &a)
		_ = json.Unmarshal(got, &b)
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		if string(x) != string(y) {
			t.Fatalf("values changed: %s against %s", x, y)
		}
	})
}
