package vdbench

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Pos is where a parameter was written: the file and its line (1-based).
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Error is a parameter file ptsrun refuses: where, which parameter, and why.
// Every error Parse and Translate return is one.
type Error struct {
	Pos   Pos
	Param string // "seekpct=eof" as written, or "" when the line is at fault
	Msg   string
}

func (e *Error) Error() string {
	if e.Param == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Param, e.Msg)
}

func errAt(pos Pos, param, format string, a ...any) *Error {
	return &Error{Pos: pos, Param: param, Msg: fmt.Sprintf(format, a...)}
}

// Source is a file Parse read: the parameter file or an include= file.
type Source struct {
	Name string `json:"name"`
	Text []byte `json:"-"`
}

// File is a parsed parameter file: its general parameters, then its
// storage (sd), workload (wd) and run (rd) definitions in the order written.
// A definition named "default" sets the defaults of the ones after it.
type File struct {
	Name    string
	Sources []Source // the file first, then its include= files in the order read
	General []Param
	SDs     []Def
	WDs     []Def
	RDs     []Def
}

// Def is one definition: sd=NAME, wd=NAME or rd=NAME and the parameters
// that follow it up to the next definition.
type Def struct {
	Kind   string // "sd", "wd" or "rd"
	Name   string
	Pos    Pos
	Params []Param
}

// Param is one keyword=value of a parameter file.
type Param struct {
	Pos Pos
	Key string // lower-cased, as written: vdbench takes any abbreviation of two letters or more ("th" is threads)
	Raw string // the value as written
	// Values are the value's items: one, or the items of a parenthesised
	// list with its ranges expanded ("(1-8,d)" is 1, 2, 4, 8).
	Values []Value
}

// String is the parameter as written: "threads=8".
func (p Param) String() string { return p.Key + "=" + p.Raw }

// Value is one item of a parameter's value.
type Value struct {
	Text  string
	Num   float64 // with IsNum: the number, sizes in bytes (k = 1024), times in seconds
	IsNum bool
}

// Options tune Parse.
type Options struct {
	// ReadFile reads an include= file by its path; nil refuses include=.
	ReadFile func(path string) ([]byte, error)
}

// The most items a list may expand to (vdbench's own limit is 10240).
const maxItems = 10000

// ParseFile reads a vdbench parameter file, and the files its include=
// lines name, with readFile (os.ReadFile): the only I/O of the package.
func ParseFile(path string, readFile func(string) ([]byte, error)) (*File, error) {
	src, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("vdbench parameter file: %w", err)
	}
	return Parse(path, src, Options{ReadFile: readFile})
}

// Parse reads a vdbench parameter file named name (for the messages) as
// vdbench 5.04 does:
//
//   - Each line is trimmed. A line starting with "eof" ends the file; a
//     line starting with "*", "#" or "/", or empty, is a comment.
//   - A line starting with "include=FILE" is replaced by FILE's lines (a
//     name without a directory is looked up beside the including file,
//     then in the working directory); an included file includes nothing.
//   - The first blank (space or tab) ends a line's parameters: what follows
//     is a comment. Double quotes keep blanks, commas, "=", "-" and
//     parentheses in a value.
//   - A line ending in "," continues on the next parameter line.
//   - Parameters are keyword=value, separated by commas; a value is one
//     item or a parenthesised list of items. In a list, FROM-TO,STEP is a
//     range (FROM-TO,d doubles), and NAME1-NAME9 a range of names.
//     Numbers take k, m, g, t (binary: k = 1024; m is minutes for elapsed,
//     interval, warmup and pause) and h (3600).
//   - General parameters come first, then storage definitions (sd=), then
//     workload definitions (wd=), then run definitions (rd=). A definition
//     runs from its sd=/wd=/rd= to the next, across lines: in a workload
//     definition sd= names its storage, in a run definition wd= and sd= its
//     workloads and storage.
//
// Parse refuses what cannot be a vdbench file; Translate refuses what
// ptsrun cannot run.
func Parse(name string, src []byte, opts Options) (*File, error) {
	p := &parser{opts: opts, file: &File{Name: name}}
	if err := p.read(name, src, false); err != nil {
		return nil, err
	}
	items, err := p.items()
	if err != nil {
		return nil, err
	}
	var params []Param
	for _, it := range items {
		prm, err := parseItem(it)
		if err != nil {
			return nil, err
		}
		params = append(params, prm)
	}
	if err := p.sections(params); err != nil {
		return nil, err
	}
	return p.file, nil
}

type parser struct {
	opts  Options
	file  *File
	lines []rawLine
}

type rawLine struct {
	text string
	pos  Pos
}

// read adds a file's parameter lines, following include= lines.
func (p *parser) read(name string, src []byte, included bool) error {
	p.file.Sources = append(p.file.Sources, Source{Name: name, Text: src})
	for i, l := range strings.Split(string(src), "\n") {
		pos := Pos{File: name, Line: i + 1}
		l = strings.TrimSuffix(l, "\r")
		if j := strings.IndexFunc(l, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }); j >= 0 {
			return errAt(pos, "", "control character %q in the line", l[j])
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "eof") {
			break
		}
		if t == "" || t[0] == '*' || t[0] == '#' || t[0] == '/' {
			continue
		}
		if strings.HasPrefix(t, "include=") {
			if err := p.include(t, pos, name, included); err != nil {
				return err
			}
			continue
		}
		p.lines = append(p.lines, rawLine{text: t, pos: pos})
	}
	return nil
}

func (p *parser) include(line string, pos Pos, from string, included bool) error {
	param := cutBlank(line)
	inc := strings.TrimPrefix(param, "include=")
	switch {
	case included:
		return errAt(pos, param, "an included file includes nothing (vdbench refuses include= in an include= file)")
	case inc == "" || strings.Contains(inc, "="):
		return errAt(pos, param, "write include=FILE")
	case p.opts.ReadFile == nil:
		return errAt(pos, param, "no file to include from here")
	}
	// vdbench: a name without a directory is looked up beside the file
	// that includes it, then in the working directory.
	var tries []string
	if !strings.Contains(inc, "/") {
		tries = append(tries, filepath.Join(filepath.Dir(from), inc))
	}
	tries = append(tries, inc)
	for _, path := range tries {
		src, err := p.opts.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return errAt(pos, param, "%v", err)
		}
		return p.read(path, src, true)
	}
	return errAt(pos, param, "no such file (looked for %s)", strings.Join(tries, ", "))
}

// Quoted characters are kept out of the way of the tokenizer as these
// control characters, which a line cannot hold (read refuses them).
var protect = strings.NewReplacer(" ", "\x01", "\t", "\x02", ",", "\x03", "=", "\x04", "-", "\x05", "(", "\x06", ")", "\x07")

var unprotect = strings.NewReplacer("\x01", " ", "\x02", "\t", "\x03", ",", "\x04", "=", "\x05", "-", "\x06", "(", "\x07", ")")

// specialize is vdbench's own: the quoted parts of a line protected and
// the quotes dropped, then the line cut at its first blank.
func specialize(l rawLine) (string, error) {
	var b strings.Builder
	s := l.text
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return "", errAt(l.pos, "", "a double quote without its closing one")
		}
		b.WriteString(s[:i])
		b.WriteString(protect.Replace(s[i+1 : i+1+j]))
		s = s[i+1+j+1:]
	}
	return cutBlank(b.String()), nil
}

// cutBlank cuts a line at its first blank: vdbench reads no further.
func cutBlank(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

type item struct {
	text string
	pos  Pos
}

// items splits the parameter lines into keyword=value items at the commas
// outside parentheses, joining a line that ends in a comma to the next.
func (p *parser) items() ([]item, error) {
	var out []item
	for i := 0; i < len(p.lines); {
		type mark struct {
			at  int
			pos Pos
		}
		var text string
		var marks []mark
		for {
			s, err := specialize(p.lines[i])
			if err != nil {
				return nil, err
			}
			marks = append(marks, mark{len(text), p.lines[i].pos})
			text += s
			i++
			if !strings.HasSuffix(text, ",") || i == len(p.lines) {
				break
			}
		}
		posAt := func(at int) Pos {
			pos := marks[0].pos
			for _, m := range marks {
				if m.at <= at {
					pos = m.pos
				}
			}
			return pos
		}
		depth, start := 0, 0
		for j := 0; j <= len(text); j++ {
			if j < len(text) {
				switch text[j] {
				case '(':
					depth++
					continue
				case ')':
					if depth == 0 {
						return nil, errAt(posAt(j), "", "a closing parenthesis without its opening one")
					}
					depth--
					continue
				case ',':
					if depth > 0 {
						continue
					}
				default:
					continue
				}
			}
			if depth > 0 {
				return nil, errAt(posAt(start), "", "%q: a parenthesis left open (a list that goes on to the next line ends its line with a comma)", unprotect.Replace(text[start:]))
			}
			it := text[start:j]
			if it == "" && j < len(text) {
				return nil, errAt(posAt(start), "", "an empty parameter (two commas, or a comma first)")
			}
			if it != "" {
				out = append(out, item{text: it, pos: posAt(start)})
			}
			start = j + 1
		}
	}
	return out, nil
}

// parseItem reads one keyword=value.
func parseItem(it item) (Param, error) {
	key, val, ok := strings.Cut(it.text, "=")
	shown := unprotect.Replace(it.text)
	if !ok || key == "" || val == "" {
		return Param{}, errAt(it.pos, shown, "expecting keyword=value")
	}
	key = strings.ToLower(unprotect.Replace(key))
	if len(key) < 2 {
		return Param{}, errAt(it.pos, shown, "a keyword has two letters at least")
	}
	prm := Param{Pos: it.pos, Key: key, Raw: unprotect.Replace(val)}
	if !strings.HasPrefix(val, "(") {
		prm.Values = []Value{value(key, val)}
		return prm, nil
	}
	if !strings.HasSuffix(val, ")") {
		return Param{}, errAt(it.pos, prm.String(), "a list ends with its closing parenthesis")
	}
	elems := splitTop(val[1 : len(val)-1])
	ranges := key != "host" && key != "hd" && key != "replay" && !strings.HasPrefix(key, "misc")
	for j := 0; j < len(elems); j++ {
		e := elems[j]
		if e == "" {
			return Param{}, errAt(it.pos, prm.String(), "an empty item in the list")
		}
		if !ranges || !strings.Contains(e, "-") {
			prm.Values = append(prm.Values, value(key, e))
			continue
		}
		var step string
		if j+1 < len(elems) {
			step = elems[j+1]
		}
		vals, usedStep, err := expand(key, e, step)
		if err != nil {
			return Param{}, errAt(it.pos, prm.String(), "%s", err)
		}
		if usedStep {
			j++
		}
		prm.Values = append(prm.Values, vals...)
		if len(prm.Values) > maxItems {
			return Param{}, errAt(it.pos, prm.String(), "more than %d items", maxItems)
		}
	}
	if len(prm.Values) == 0 {
		return Param{}, errAt(it.pos, prm.String(), "an empty list")
	}
	return prm, nil
}

// splitTop splits a list's inside at its commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// expand expands a range item FROM-TO: numbers with the next item as
// their step (a number, or d to double: halving when FROM is above TO),
// names NAME1-NAME9 by their number.
func expand(key, e, step string) (vals []Value, usedStep bool, err error) {
	a, b, _ := strings.Cut(e, "-")
	if a == "" || b == "" || strings.Contains(b, "-") {
		return nil, false, fmt.Errorf("range %q: write FROM-TO", unprotect.Replace(e))
	}
	va, vb := value(key, a), value(key, b)
	shown := unprotect.Replace(e)
	switch {
	case va.IsNum && vb.IsNum:
		if step == "" {
			return nil, false, fmt.Errorf("range %s has no step: write (%s,STEP), or (%s,d) to double", shown, shown, shown)
		}
		from, to := va.Num, vb.Num
		if strings.EqualFold(step, "d") {
			if from <= 0 || to <= 0 {
				return nil, false, fmt.Errorf("range %s,d doubles from a number above zero", shown)
			}
			for v := from; ; {
				vals = append(vals, Value{Text: strconv.FormatFloat(v, 'g', -1, 64), Num: v, IsNum: true})
				if from <= to {
					v *= 2
					if v > to {
						break
					}
				} else {
					v /= 2
					if v < to {
						break
					}
				}
				if len(vals) > maxItems {
					return nil, false, fmt.Errorf("range %s,d has more than %d items", shown, maxItems)
				}
			}
			return vals, true, nil
		}
		sv := value(key, step)
		switch {
		case !sv.IsNum || !(sv.Num > 0):
			return nil, false, fmt.Errorf("range %s: the step %q is not a number above zero (or d, to double)", shown, unprotect.Replace(step))
		case from > to:
			return nil, false, fmt.Errorf("range %s counts down, where vdbench runs %s alone: list the values, or count up", shown, unprotect.Replace(a))
		case (to-from)/sv.Num > maxItems:
			return nil, false, fmt.Errorf("range %s,%s has more than %d items", shown, unprotect.Replace(step), maxItems)
		}
		n := int(math.Floor((to-from)/sv.Num + 1e-9))
		for i := 0; i <= n; i++ {
			v := from + float64(i)*sv.Num
			vals = append(vals, Value{Text: strconv.FormatFloat(v, 'g', -1, 64), Num: v, IsNum: true})
		}
		return vals, true, nil
	case !va.IsNum && !vb.IsNum:
		pa, na, oka := splitName(va.Text)
		pb, nb, okb := splitName(vb.Text)
		switch {
		case !oka || !okb:
			return nil, false, fmt.Errorf("range %s: names in a range end in a number without leading zeros (sd1-sd8)", shown)
		case pa != pb:
			return nil, false, fmt.Errorf("range %s: the names differ before their numbers", shown)
		case na >= nb:
			return nil, false, fmt.Errorf("range %s: the second number is not above the first", shown)
		case nb-na > maxItems:
			return nil, false, fmt.Errorf("range %s has more than %d items", shown, maxItems)
		}
		for n := na; n <= nb; n++ {
			vals = append(vals, Value{Text: pa + strconv.Itoa(n)})
		}
		return vals, false, nil
	}
	return nil, false, fmt.Errorf("range %s: from a number to a name", shown)
}

// splitName splits "sd12" into "sd" and 12.
func splitName(s string) (string, int, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	digits := s[i:]
	if i == 0 || digits == "" || len(digits) > 9 || (len(digits) > 1 && digits[0] == '0') {
		return "", 0, false
	}
	n, err := strconv.Atoi(digits)
	return s[:i], n, err == nil
}

var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// value reads one item as vdbench does: a number, a number with a unit
// (k, m, g, t binary, with an optional b; h hours; m minutes for the
// time keywords; % negates, vdbench's mark of a percentage), or a name.
func value(key, s string) Value {
	s = unprotect.Replace(s)
	v := Value{Text: s}
	if n, ok := number(s); ok {
		v.Num, v.IsNum = n, true
		return v
	}
	lower := strings.ToLower(s)
	tail, front := "", ""
	switch {
	case len(lower) > 2 && strings.HasSuffix(lower, "b"):
		tail, front = lower[len(lower)-2:len(lower)-1], lower[:len(lower)-2]
	case len(lower) > 1:
		tail, front = lower[len(lower)-1:], lower[:len(lower)-1]
	default:
		return v
	}
	mega := float64(1 << 20)
	for _, k := range []string{"el", "in", "pa", "wa", "reset"} {
		if strings.HasPrefix(key, k) {
			mega = 60 // elapsed, interval, pause, warmup: minutes
		}
	}
	var mult float64
	switch tail {
	case "k":
		mult = 1 << 10
	case "m":
		mult = mega
	case "g":
		mult = 1 << 30
	case "t":
		mult = 1 << 40
	case "h":
		mult = 3600
	case "%":
		mult = -1
	default:
		return v
	}
	if n, ok := number(front); ok {
		v.Num, v.IsNum = n*mult, true
	}
	return v
}

func number(s string) (float64, bool) {
	if !decimal.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false
	}
	return n, true
}

// sections sorts the parameters into general parameters and definitions,
// in vdbench's order.
func (p *parser) sections(params []Param) error {
	const (
		general = iota
		sds
		wds
		rds
	)
	section := general
	var cur *Def
	seen := map[string]Pos{}
	start := func(kind string, prm Param, list *[]Def) error {
		if len(prm.Values) != 1 {
			return errAt(prm.Pos, prm.String(), "a %s definition has one name", kind)
		}
		name := prm.Values[0].Text
		if name != "default" {
			if at, ok := seen[kind+"="+name]; ok {
				return errAt(prm.Pos, prm.String(), "%s=%s is defined twice (first at %s)", kind, name, at)
			}
			seen[kind+"="+name] = prm.Pos
		}
		*list = append(*list, Def{Kind: kind, Name: name, Pos: prm.Pos})
		cur = &(*list)[len(*list)-1]
		return nil
	}
	f := p.file
	for _, prm := range params {
		var err error
		switch k := prm.Key; {
		case (k == "hd" || k == "host") && section == general:
			return errAt(prm.Pos, prm.String(), "host definitions run vdbench on several hosts; ptsrun loads the targets of this host (ptsrun fio --fio-server loads several)")
		case k == "rg":
			return errAt(prm.Pos, prm.String(), "replay groups replay an I/O trace, which ptsrun does not do")
		case (k == "fsd" || k == "fwd") && section != rds:
			return errAt(prm.Pos, prm.String(), "file system workloads (fsd, fwd) create and use files in directories; ptsrun runs block workloads (sd, wd, rd)")
		case k == "sd" && section <= sds:
			section = sds
			err = start("sd", prm, &f.SDs)
		case k == "wd" && section <= wds:
			section = wds
			err = start("wd", prm, &f.WDs)
		case k == "rd":
			section = rds
			err = start("rd", prm, &f.RDs)
		case section == general:
			f.General = append(f.General, prm)
		default:
			cur.Params = append(cur.Params, prm)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
