package vdbench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("parm", []byte(src), Options{})
	require.NoError(t, err)
	return f
}

// params flattens a file's definitions to "kind=name: key=raw ..." lines.
func params(f *File) []string {
	var out []string
	for _, p := range f.General {
		out = append(out, p.String())
	}
	for _, list := range [][]Def{f.SDs, f.WDs, f.RDs} {
		for _, d := range list {
			var ps []string
			for _, p := range d.Params {
				ps = append(ps, p.String())
			}
			out = append(out, d.Kind+"="+d.Name+": "+strings.Join(ps, " "))
		}
	}
	return out
}

func TestParseLines(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"one definition a line", "sd=sd1,lun=/dev/sda,openflags=o_direct,threads=4\nwd=wd1,sd=(sd1,sd2),xfersize=64k,rdpct=75,seekpct=80\nrd=run1,wd=wd1,iorate=max,elapsed=300\n",
			[]string{"sd=sd1: lun=/dev/sda openflags=o_direct threads=4", "wd=wd1: sd=(sd1,sd2) xfersize=64k rdpct=75 seekpct=80",
				"rd=run1: wd=wd1 iorate=max elapsed=300"}},
		// The first blank ends a line: the rest is a comment, even
		// parameters (vdbench reads no further).
		{"a blank ends the line", "sd=sd1,lun=/dev/sda   threads=4 is a comment\n",
			[]string{"sd=sd1: lun=/dev/sda"}},
		{"the issue's one-liner is an sd", "sd=sd1,lun=/dev/sda,openflags=o_direct,threads=4 wd=wd1,sd=(sd1,sd2) rd=run1,wd=wd1\n",
			[]string{"sd=sd1: lun=/dev/sda openflags=o_direct threads=4"}},
		{"comments", "* a comment\n# another\n/ and another\n\n   * indented\nsd=sd1,lun=/dev/sda\n",
			[]string{"sd=sd1: lun=/dev/sda"}},
		{"eof ends the file", "sd=sd1,lun=/dev/sda\neof\nsd=sd2,lun=/dev/sdb\n",
			[]string{"sd=sd1: lun=/dev/sda"}},
		{"a comma continues the line", "wd=wd1,\n  sd=sd1,\n  xfersize=(4k,50,\n  8k,50)\n",
			[]string{"wd=wd1: sd=sd1 xfersize=(4k,50,8k,50)"}},
		{"a comma before a comment continues", "wd=wd1,   * first part\n* between\n  sd=sd1\n",
			[]string{"wd=wd1: sd=sd1"}},
		{"a definition runs across lines", "sd=sd1\nlun=/dev/sda\nthreads=8\nsd=sd2,lun=/dev/sdb\n",
			[]string{"sd=sd1: lun=/dev/sda threads=8", "sd=sd2: lun=/dev/sdb"}},
		{"quotes keep blanks and commas", `sd=sd1,lun="/tmp/a b,c=d-e(f)"` + "\n",
			[]string{"sd=sd1: lun=/tmp/a b,c=d-e(f)"}},
		{"general parameters first", "messagescan=no\nreport=no_sd_detail\nsd=sd1,lun=/dev/sda\n",
			[]string{"messagescan=no", "report=no_sd_detail", "sd=sd1: lun=/dev/sda"}},
		{"sd= in a wd and wd= in an rd are theirs", "sd=sd1,lun=/dev/sda\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,sd=sd1\n",
			[]string{"sd=sd1: lun=/dev/sda", "wd=wd1: sd=sd1", "rd=rd1: wd=wd1 sd=sd1"}},
		{"keywords lower-cased, values kept", "SD=sd1,LUN=/dev/SDA,OpenFlags=O_DIRECT\n",
			[]string{"sd=sd1: lun=/dev/SDA openflags=O_DIRECT"}},
		{"CRLF", "sd=sd1,lun=/dev/sda\r\nsd=sd2,lun=/dev/sdb\r\n",
			[]string{"sd=sd1: lun=/dev/sda", "sd=sd2: lun=/dev/sdb"}},
		{"a trailing comma at the end", "sd=sd1,lun=/dev/sda,\n",
			[]string{"sd=sd1: lun=/dev/sda"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, params(parse(t, c.src)))
		})
	}
}

func TestParseValues(t *testing.T) {
	val := func(src string) []Value {
		f := parse(t, "rd=rd1,"+src+"\n")
		require.Len(t, f.RDs[0].Params, 1)
		return f.RDs[0].Params[0].Values
	}
	num := func(vs ...float64) []Value {
		var out []Value
		for _, v := range vs {
			out = append(out, Value{Num: v, IsNum: true})
		}
		return out
	}
	nums := func(vs []Value) []Value {
		for i := range vs {
			vs[i].Text = ""
		}
		return vs
	}
	assert.Equal(t, num(4096), nums(val("xfersize=4k")))
	assert.Equal(t, num(4096), nums(val("xfersize=4KB")))
	assert.Equal(t, num(512), nums(val("xfersize=0.5k")))
	assert.Equal(t, num(1<<20, 1<<30, 1<<40), nums(val("forx=(1m,1g,1t)")))
	assert.Equal(t, num(120), nums(val("elapsed=2m")), "minutes for elapsed")
	assert.Equal(t, num(7200), nums(val("elapsed=2h")))
	assert.Equal(t, num(60), nums(val("warmup=1m")))
	assert.Equal(t, num(1, 2, 4, 8, 16, 32, 64), nums(val("forthreads=(1-64,d)")))
	assert.Equal(t, num(64, 32, 16, 8, 4, 2, 1), nums(val("forthreads=(64-1,d)")), "reverse doubling")
	assert.Equal(t, num(10, 20, 30, 40, 50), nums(val("forrdpct=(10-50,10)")))
	assert.Equal(t, num(4096, 8192, 12288, 16384), nums(val("forxfersize=(4k-16k,4k)")))
	assert.Equal(t, num(100, 1, 2, 3), nums(val("iorate=(100,1-3,1)")), "ranges among items")
	assert.Equal(t, []Value{{Text: "sd1"}, {Text: "sd2"}, {Text: "sd3"}, {Text: "x*"}}, val("sd=(sd1-sd3,x*)"))
	assert.Equal(t, []Value{{Text: "max"}}, val("iorate=max"))
	assert.Equal(t, []Value{{Text: "/dev/disk/by-id/nvme-x-1"}}, val("lun=/dev/disk/by-id/nvme-x-1"), "no ranges outside lists")
	assert.Equal(t, []Value{{Text: "a-b"}}, val(`sd=("a-b")`), "a quoted dash is no range")
}

func TestParseInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	write("sds", "* the sds\nsd=sd1,lun=/dev/sda\nsd=sd2,lun=/dev/sdb\n")
	main := write("sub/../main.parm", "messagescan=no\ninclude=sds   * beside this file\nwd=wd1,sd=*\n")
	f, err := ParseFile(main, os.ReadFile)
	require.NoError(t, err)
	assert.Equal(t, []string{"messagescan=no", "sd=sd1: lun=/dev/sda", "sd=sd2: lun=/dev/sdb", "wd=wd1: sd=*"}, params(f))
	assert.Equal(t, Pos{File: filepath.Join(dir, "sds"), Line: 2}, f.SDs[0].Pos, "positions name the included file")
	require.Len(t, f.Sources, 2)

	write("loop", "include=sds\n")
	_, err = Parse("p", []byte("include=loop\n"), Options{ReadFile: func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, p)) }})
	assert.EqualError(t, err, "loop:1: include=sds: an included file includes nothing (vdbench refuses include= in an include= file)")
	_, err = ParseFile(write("missing.parm", "include=nothere\n"), os.ReadFile)
	assert.ErrorContains(t, err, "missing.parm:1: include=nothere: no such file (looked for "+filepath.Join(dir, "nothere")+", nothere)")
	_, err = Parse("p", []byte("include=x\n"), Options{})
	assert.EqualError(t, err, "p:1: include=x: no file to include from here")
	_, err = ParseFile(filepath.Join(dir, "none"), os.ReadFile)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
}

func TestParseBadInput(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"sd=sd1,lun=/dev/sda\nsd=sd2,,lun=x\n", "parm:2: an empty parameter (two commas, or a comma first)"},
		{"sd=sd1,lun\n", "parm:1: lun: expecting keyword=value"},
		{"sd=sd1,lun=\n", "parm:1: lun=: expecting keyword=value"},
		{"sd=sd1,l=/dev/sda\n", "parm:1: l=/dev/sda: a keyword has two letters at least"},
		{"wd=wd1,xfersize=(4k,50\nrd=rd1\n", `parm:1: "xfersize=(4k,50": a parenthesis left open (a list that goes on to the next line ends its line with a comma)`},
		{"wd=wd1,xfersize=4k)\n", "parm:1: a closing parenthesis without its opening one"},
		{"wd=wd1,xfersize=(4k)x\n", "parm:1: xfersize=(4k)x: a list ends with its closing parenthesis"},
		{`sd=sd1,lun="/dev/sda` + "\n", "parm:1: a double quote without its closing one"},
		{"sd=sd1,lun=/dev/sda\x00\n", `parm:1: control character '\x00' in the line`},
		{"rd=rd1,forthreads=(1-4)\n", "parm:1: forthreads=(1-4): range 1-4 has no step: write (1-4,STEP), or (1-4,d) to double"},
		{"rd=rd1,forthreads=(8-1,1)\n", "parm:1: forthreads=(8-1,1): range 8-1 counts down, where vdbench runs 8 alone: list the values, or count up"},
		{"rd=rd1,forthreads=(1-8,x)\n", `parm:1: forthreads=(1-8,x): range 1-8: the step "x" is not a number above zero (or d, to double)`},
		{"rd=rd1,forthreads=(0-8,d)\n", "parm:1: forthreads=(0-8,d): range 0-8,d doubles from a number above zero"},
		{"rd=rd1,forthreads=(1-100000,1)\n", "parm:1: forthreads=(1-100000,1): range 1-100000,1 has more than 10000 items"},
		{"wd=wd1,sd=(sd1-x2)\n", "parm:1: sd=(sd1-x2): range sd1-x2: the names differ before their numbers"},
		{"wd=wd1,sd=(sd3-sd1)\n", "parm:1: sd=(sd3-sd1): range sd3-sd1: the second number is not above the first"},
		{"wd=wd1,sd=(sd01-sd09)\n", "parm:1: sd=(sd01-sd09): range sd01-sd09: names in a range end in a number without leading zeros (sd1-sd8)"},
		{"wd=wd1,sd=(sd1-4)\n", "parm:1: sd=(sd1-4): range sd1-4: from a number to a name"},
		{"wd=wd1,sd=(a-b-c)\n", `parm:1: sd=(a-b-c): range "a-b-c": write FROM-TO`},
		{"wd=wd1,sd=(sd1,,sd2)\n", "parm:1: sd=(sd1,,sd2): an empty item in the list"},
		{"sd=sd1,lun=/dev/sda\nsd=sd1,lun=/dev/sdb\n", "parm:2: sd=sd1: sd=sd1 is defined twice (first at parm:1)"},
		{"sd=(a,b),lun=/dev/sda\n", "parm:1: sd=(a,b): a sd definition has one name"},
		{"hd=default,vdbench=/opt/vdbench\n", "parm:1: hd=default: host definitions run vdbench on several hosts; ptsrun loads the targets of this host (ptsrun fio --fio-server loads several)"},
		{"fsd=fsd1,anchor=/mnt\n", "parm:1: fsd=fsd1: file system workloads (fsd, fwd) create and use files in directories; ptsrun runs block workloads (sd, wd, rd)"},
		{"rg=rg1\n", "parm:1: rg=rg1: replay groups replay an I/O trace, which ptsrun does not do"},
	} {
		t.Run(c.want, func(t *testing.T) {
			_, err := Parse("parm", []byte(c.src), Options{})
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, c.want, err.Error())
		})
	}
}

func TestKeywordAbbreviations(t *testing.T) {
	for _, c := range []struct {
		table      []keyword
		key, want  string
		whyInOrder string
	}{
		{sdKeywords, "th", "threads", ""},
		{sdKeywords, "re", "replay", "replay comes before resetlun and range"},
		{sdKeywords, "ra", "range", ""},
		{sdKeywords, "hd", "host", "hd is host, whole only"},
		{sdKeywords, "ho", "host", ""},
		{sdKeywords, "dedupratio", "dedup", "the dedup family"},
		{sdKeywords, "lunx", "", "longer than the name"},
		{wdKeywords, "rd", "rdpct", ""},
		{wdKeywords, "readpct", "rdpct", ""},
		{wdKeywords, "writepct", "wrpct", ""},
		{wdKeywords, "se", "seekpct", ""},
		{wdKeywords, "sd", "sd", ""},
		{wdKeywords, "us", "", "user is whole only"},
		{rdKeywords, "el", "elapsed", ""},
		{rdKeywords, "forx", "forxfersize", ""},
		{rdKeywords, "xf", "xfersize", ""},
		{rdKeywords, "th", "threads", ""},
		{rdKeywords, "maxdataread", "maxdata", ""},
		{rdKeywords, "start_cmd", "startcmd", ""},
		{rdKeywords, "fwd", "fwd", "fwd whole, before fwdrate"},
		{rdKeywords, "fwdr", "fwdrate", ""},
		{generalKeywords, "comp", "compratio", "compression is whole only"},
		{generalKeywords, "compression", "compression", ""},
		{generalKeywords, "dataerrors", "data_errors", ""},
		{generalKeywords, "re", "report", "report before report_run_totals"},
		{generalKeywords, "report_run_totals", "report_run_totals", ""},
	} {
		assert.Equal(t, c.want, match(c.table, c.key), "%s %s", c.key, c.whyInOrder)
	}
}
