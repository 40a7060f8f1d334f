package vdbench

import "strings"

// keyword is one of vdbench's keywords as its parser matches them: any
// abbreviation of two letters or more of one of its names (vdbench's
// "threads".startsWith(keyword)), or only a whole name (exact), or any
// keyword that starts with the name (family: dedup*).
type keyword struct {
	name   string   // the full name
	also   []string // other names, matched the same way
	exact  []string // other names, matched only whole ("hd" for host)
	whole  bool     // name and also match only whole (vdbench's equals())
	family bool
}

// match finds key in a table in vdbench's order, the first match winning
// as in vdbench ("re" is replay in a storage definition, before range):
// the keyword's full name, or "" when vdbench knows no such keyword.
func match(table []keyword, key string) string {
	for _, k := range table {
		switch {
		case k.family:
			if strings.HasPrefix(key, k.name) {
				return k.name
			}
			continue
		case k.whole:
			if key == k.name {
				return k.name
			}
		case strings.HasPrefix(k.name, key):
			return k.name
		}
		for _, a := range k.also {
			if k.whole && key == a || !k.whole && strings.HasPrefix(a, key) {
				return k.name
			}
		}
		for _, e := range k.exact {
			if key == e {
				return k.name
			}
		}
	}
	return ""
}

func exact(name string, also ...string) keyword { return keyword{name: name, also: also, whole: true} }

// The keywords of vdbench 5.04, section by section, in the order its
// parser tries them (MiscParms, SD_entry, WD_entry, RD_entry and
// For_loop.checkForLoop), ios_per_jvm from the 5.04.07 guide.
var (
	generalKeywords = []keyword{
		exact("compression"), {name: "compratio"}, {name: "compressionseed"}, {name: "dedup", family: true},
		{name: "port"}, {name: "pattern"}, {name: "data_errors", also: []string{"dataerrors"}}, {name: "swat"},
		{name: "validate"}, exact("journal"), exact("startcmd", "start_cmd"), exact("endcmd", "end_cmd"),
		exact("heartbeat_error"), exact("debug"), {name: "unix2windows"}, {name: "formatxfersize"},
		{name: "create_anchors"}, {name: "formatsds"}, {name: "report"}, {name: "report_run_totals"},
		{name: "histogram"}, {name: "psrset"}, {name: "auxreport"}, {name: "monitor"}, {name: "concatenatesds"},
		{name: "messagescan"}, {name: "abort_failed_skew"}, {name: "misc"}, exact("pattern_buffer"),
		exact("showlba"), exact("loop"), {name: "ios_per_jvm"},
	}
	sdKeywords = []keyword{
		{name: "host", exact: []string{"hd"}}, {name: "lun"}, {name: "count"}, {name: "size"}, {name: "threads"},
		{name: "hitarea"}, {name: "offset"}, {name: "align"}, {name: "kstat"}, {name: "instance"}, {name: "replay"},
		{name: "journal"}, {name: "resetlun"}, {name: "resetbus"}, {name: "openflags"}, {name: "range"},
		{name: "dedup", family: true}, {name: "streams"},
	}
	wdKeywords = []keyword{
		exact("sd"), {name: "skew"}, {name: "xfersize"}, {name: "rdpct", also: []string{"readpct"}},
		{name: "wrpct", also: []string{"writepct"}}, {name: "range"}, {name: "hotband"}, {name: "seekpct"},
		{name: "stride"}, {name: "priority"}, {name: "iorate"}, {name: "rhpct"}, {name: "whpct"},
		{name: "host", exact: []string{"hd"}}, {name: "openflags"}, exact("user"), {name: "threads"}, {name: "streams"},
	}
	rdKeywords = []keyword{
		exact("wd"), exact("sd"), exact("fsd"), {name: "iorate"}, {name: "maxdata", family: true}, {name: "curve"},
		{name: "stopcurve"}, {name: "elapsed"}, {name: "interval"}, {name: "warmup"}, exact("replay"), {name: "pause"},
		{name: "forxfersize"}, {name: "forthreads"}, {name: "forrdpct"}, {name: "forrhpct"}, {name: "forwhpct"},
		{name: "forseekpct"}, {name: "forhitarea"}, {name: "forcompratio"}, {name: "forcompression"},
		{name: "fordepth"}, {name: "forwidth"}, {name: "forfiles"}, {name: "forsizes"}, {name: "fortotalsize"},
		{name: "forwss", also: []string{"forworkingsetsize"}}, {name: "foroperations"},
		// "Most forxxx parameters can just be abbreviated to their
		// regular name": xfersize= in a run definition is forxfersize=.
		{name: "xfersize"}, {name: "threads"}, {name: "rdpct"}, {name: "rhpct"}, {name: "whpct"}, {name: "seekpct"},
		{name: "hitarea"}, {name: "compratio"}, {name: "compression"}, {name: "depth"}, {name: "width"},
		{name: "files"}, {name: "sizes"}, {name: "totalsize"}, {name: "wss", also: []string{"workingsetsize"}},
		{name: "distribution"}, exact("startcmd", "start_cmd"), exact("endcmd", "end_cmd"), exact("fwd"),
		{name: "fwdrate"}, {name: "operations"}, {name: "format"}, {name: "openflags"}, {name: "mount"},
	}
)
