package pdfreport

import (
	"bytes"
	"compress/zlib"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shownText is the text a rendered PDF shows, read from its content streams
// without pdftotext: the strings of every Tj and TJ, one line per
// operator, decoded from the UTF-16 fpdf writes for embedded fonts. It
// finds a sentence on a page where pdftotext is not installed; it knows
// nothing of layout.
func shownText(t testing.TB, pdf []byte) string {
	t.Helper()
	var out strings.Builder
	for rest := pdf; ; {
		i := bytes.Index(rest, []byte("stream"))
		if i < 0 {
			break
		}
		ended := bytes.HasSuffix(rest[:i], []byte("end"))
		rest = rest[i+len("stream"):]
		switch {
		case ended:
			continue
		case bytes.HasPrefix(rest, []byte("\r\n")):
			rest = rest[2:]
		case bytes.HasPrefix(rest, []byte("\n")):
			rest = rest[1:]
		default:
			continue
		}
		end := bytes.Index(rest, []byte("endstream"))
		require.GreaterOrEqual(t, end, 0, "a stream without its end")
		data := rest[:end]
		rest = rest[end:]
		if z, err := zlib.NewReader(bytes.NewReader(data)); err == nil {
			if inflated, err := io.ReadAll(z); err == nil {
				data = inflated
			}
		}
		showOperators(data, &out)
	}
	return out.String()
}

// showOperators writes the operands of the text-showing operators in a
// content stream, a line each.
func showOperators(c []byte, out *strings.Builder) {
	var operands []string
	for i := 0; i < len(c); {
		switch ch := c[i]; {
		case ch == '(':
			s, n := literalString(c[i:])
			operands = append(operands, decodeText(s))
			i += n
		case ch == '[' || ch == ']' || ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t':
			i++
		case ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch == '\'' || ch == '"':
			j := i
			for j < len(c) && (c[j] >= 'A' && c[j] <= 'Z' || c[j] >= 'a' && c[j] <= 'z' || c[j] == '*' || c[j] == '\'' || c[j] == '"') {
				j++
			}
			if op := string(c[i:j]); (op == "Tj" || op == "TJ" || op == "'" || op == `"`) && len(operands) > 0 {
				out.WriteString(strings.Join(operands, "") + "\n")
			}
			operands = operands[:0]
			i = j
		default: // numbers, names and the like: not text
			i++
		}
	}
}

// literalString reads a PDF literal string at the start of c: its bytes
// unescaped, and how many bytes of c it took.
func literalString(c []byte) ([]byte, int) {
	var s []byte
	depth := 0
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; ch {
		case '(':
			if depth > 0 {
				s = append(s, ch)
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s, i + 1
			}
			s = append(s, ch)
		case '\\':
			i++
			if i == len(c) {
				return s, i
			}
			switch e := c[i]; e {
			case 'n':
				s = append(s, '\n')
			case 'r':
				s = append(s, '\r')
			case 't':
				s = append(s, '\t')
			case 'b':
				s = append(s, '\b')
			case 'f':
				s = append(s, '\f')
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := 0
				for k := 0; k < 3 && i < len(c) && c[i] >= '0' && c[i] <= '7'; k++ {
					v = v*8 + int(c[i]-'0')
					i++
				}
				i--
				s = append(s, byte(v))
			default: // \( \) \\ and an escaped line end's first byte
				s = append(s, e)
			}
		default:
			s = append(s, ch)
		}
	}
	return s, len(c)
}

// decodeText reads a shown string as UTF-16BE (embedded fonts), or as
// single bytes when it cannot be.
func decodeText(s []byte) string {
	if len(s)%2 != 0 {
		return string(s)
	}
	u := make([]uint16, len(s)/2)
	for i := range u {
		u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
	}
	return string(utf16.Decode(u))
}

// The reader is itself tested: it finds what a page shows, parentheses,
// accents and all, and nothing that the page does not show.
func TestShownText(t *testing.T) {
	d := &Doc{Pages: []*Page{{Title: "read back", Blocks: []Block{
		Paragraph{Lines: []string{"A sentence (with parentheses) and a back\\slash.", "Ünïcödé: 4 KiB ≤ 20 %"}},
		Table{Caption: "a table", Head: []string{"Quantity", "Value"}, Rows: [][]string{{"IOPS", "12,345"}}},
	}}}}
	text := shownText(t, render(t, d, time.Unix(0, 0)))
	for _, want := range []string{"A sentence (with parentheses) and a back\\slash.", "Ünïcödé: 4 KiB ≤ 20 %", "read back", "12,345"} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "could not be drawn")
}
