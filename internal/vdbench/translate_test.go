package vdbench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func translate(t *testing.T, src string) *Plan {
	t.Helper()
	f, err := Parse("parm", []byte(src), Options{})
	require.NoError(t, err)
	p, err := Translate(f)
	require.NoError(t, err)
	return p
}

// brief is a run in one line: name, targets, workload, time, rate.
func brief(r Run) string {
	w := r.Workload
	// The options are written out below, one by one.
	plain := w
	plain.Ramp, plain.RateIOPS, plain.RateMBps, plain.RandomPct = 0, 0, 0, 0
	s := fmt.Sprintf("%s %v %s", r.Name, r.Targets, plain.Description())
	if w.RandomPct > 0 {
		s += fmt.Sprintf(" random %g%%", w.RandomPct)
	}
	if w.Passes > 0 {
		s += fmt.Sprintf(" passes %g", w.Passes)
	}
	s += fmt.Sprintf(" %v ramp %v", w.Duration, w.Ramp)
	if w.RateIOPS > 0 {
		s += fmt.Sprintf(" cap %g IOPS", w.RateIOPS)
	}
	if w.Interval > 0 {
		s += fmt.Sprintf(" every %v", w.Interval)
	}
	if r.Pause > 0 {
		s += fmt.Sprintf(" after %v", r.Pause)
	}
	return s
}

func briefs(p *Plan) []string {
	var out []string
	for _, r := range p.Runs {
		out = append(out, brief(r))
	}
	return out
}

const twoSDs = "sd=sd1,lun=/dev/sda,openflags=o_direct,threads=4\nsd=sd2,lun=/dev/sdb,openflags=o_direct,threads=4\n"

func TestTranslate(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"the issue's HCI run", twoSDs +
			"wd=wd1,sd=(sd1,sd2),xfersize=64k,rdpct=75,seekpct=80\nrd=run1,wd=wd1,iorate=max,elapsed=300\n",
			// 80 % random: vdbench's 4 threads keep one sequential
			// position per sd, so one thread with 4 in flight.
			[]string{"run1 [/dev/sda /dev/sdb] RND 64 KiB 75/25 TC1/QD4 random 80% 5m0s ramp 1s"}},
		{"vdbench's defaults", "sd=sd1,lun=/dev/sda,openflags=o_direct\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			// threads=8, xfersize=4k, rdpct=100, seekpct=100, elapsed=30.
			[]string{"rd1 [/dev/sda] RND 4 KiB 100/0 TC8/QD1 30s ramp 1s"}},
		{"interval= is the series' interval and, without warmup=, the warm-up", twoSDs + "wd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=1m,interval=5\n",
			[]string{"rd1 [/dev/sda] RND 4 KiB 100/0 TC4/QD1 1m0s ramp 5s every 5s"}},
		{"warmup comes before elapsed", twoSDs + "wd=wd1,sd=sd*\nrd=rd1,wd=wd1,iorate=1000,elapsed=1m,warmup=15\n",
			[]string{"rd1 [/dev/sda /dev/sdb] RND 4 KiB 100/0 TC4/QD1 1m15s ramp 15s cap 500 IOPS"}},
		{"sequential", twoSDs + "wd=w1,sd=sd1,seekpct=seq,rdpct=0,xfersize=128k\nwd=w2,sd=sd1,seekpct=0\nwd=w3,sd=sd1,seekpct=eof\nwd=w4,sd=sd1,seekpct=random\nwd=w5,sd=sd1,seekpct=100\n" +
			"rd=r1,wd=w1,iorate=max,elapsed=2\nrd=r2,wd=w2,iorate=max,elapsed=2\nrd=r3,wd=w3,iorate=max,elapsed=10h\nrd=r4,wd=w4,iorate=max,elapsed=2\nrd=r5,wd=w5,iorate=max,elapsed=2\n",
			[]string{"r1 [/dev/sda] SEQ 128 KiB 0/100 TC1/QD4 2s ramp 1s", "r2 [/dev/sda] SEQ 4 KiB 100/0 TC1/QD4 2s ramp 1s",
				"r3 [/dev/sda] SEQ 4 KiB 100/0 TC1/QD4 passes 1 10h0m0s ramp 1s", "r4 [/dev/sda] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s",
				"r5 [/dev/sda] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s"}},
		{"a distribution of sizes", twoSDs + "wd=wd1,sd=sd1,xfersize=(4k,50,8k,25,64k,25),wrpct=30\nrd=rd1,wd=wd1,iorate=max,elapsed=2\n",
			[]string{"rd1 [/dev/sda] RND composite 70/30 TC4/QD1 — block sizes 4 KiB 50 %, 8 KiB 25 %, 64 KiB 25 % 2s ramp 1s"}},
		{"for-loops, the first outermost, rates innermost", twoSDs +
			"wd=wd1,sd=(sd1,sd2),xfersize=4k\nrd=rd1,wd=wd1,forxfersize=(4k,8k),forthreads=(1,2),iorate=(100,200),elapsed=2,pause=3\n",
			[]string{"rd1-xfersize=4k-threads=1-iorate=100 [/dev/sda /dev/sdb] RND 4 KiB 100/0 TC1/QD1 2s ramp 1s cap 50 IOPS",
				"rd1-xfersize=4k-threads=1-iorate=200 [/dev/sda /dev/sdb] RND 4 KiB 100/0 TC1/QD1 2s ramp 1s cap 100 IOPS after 3s",
				"rd1-xfersize=4k-threads=2-iorate=100 [/dev/sda /dev/sdb] RND 4 KiB 100/0 TC2/QD1 2s ramp 1s cap 50 IOPS after 3s",
				"rd1-xfersize=4k-threads=2-iorate=200 [/dev/sda /dev/sdb] RND 4 KiB 100/0 TC2/QD1 2s ramp 1s cap 100 IOPS after 3s",
				"rd1-xfersize=8k-threads=1-iorate=100 [/dev/sda /dev/sdb] RND 8 KiB 100/0 TC1/QD1 2s ramp 1s cap 50 IOPS after 3s",
				"rd1-xfersize=8k-threads=1-iorate=200 [/dev/sda /dev/sdb] RND 8 KiB 100/0 TC1/QD1 2s ramp 1s cap 100 IOPS after 3s",
				"rd1-xfersize=8k-threads=2-iorate=100 [/dev/sda /dev/sdb] RND 8 KiB 100/0 TC2/QD1 2s ramp 1s cap 50 IOPS after 3s",
				"rd1-xfersize=8k-threads=2-iorate=200 [/dev/sda /dev/sdb] RND 8 KiB 100/0 TC2/QD1 2s ramp 1s cap 100 IOPS after 3s"}},
		{"short for-loops in an rd, one value names nothing", twoSDs +
			"wd=wd1,sd=sd1\nrd=rd1,wd=wd1,threads=16,xfersize=16k,rdpct=(70,30),seekpct=(0,100),iorate=max,elapsed=2\n",
			[]string{"rd1-rdpct=70-seekpct=0 [/dev/sda] SEQ 16 KiB 70/30 TC1/QD16 2s ramp 1s",
				"rd1-rdpct=70-seekpct=100 [/dev/sda] RND 16 KiB 70/30 TC16/QD1 2s ramp 1s",
				"rd1-rdpct=30-seekpct=0 [/dev/sda] SEQ 16 KiB 30/70 TC1/QD16 2s ramp 1s",
				"rd1-rdpct=30-seekpct=100 [/dev/sda] RND 16 KiB 30/70 TC16/QD1 2s ramp 1s"}},
		{"a for-loop given again goes last", twoSDs +
			"wd=wd1,sd=sd1\nrd=rd1,wd=wd1,forthreads=(1,2),forxfersize=(4k,8k),forthreads=(4,8),iorate=max,elapsed=2\n",
			[]string{"rd1-xfersize=4k-threads=4 [/dev/sda] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s",
				"rd1-xfersize=4k-threads=8 [/dev/sda] RND 4 KiB 100/0 TC8/QD1 2s ramp 1s",
				"rd1-xfersize=8k-threads=4 [/dev/sda] RND 8 KiB 100/0 TC4/QD1 2s ramp 1s",
				"rd1-xfersize=8k-threads=8 [/dev/sda] RND 8 KiB 100/0 TC8/QD1 2s ramp 1s"}},
		{"ranges: the wd's takes the sd's place", "sd=sd1,lun=/dev/sda,openflags=o_direct,range=(10,50)\nwd=w1,sd=sd1\nwd=w2,sd=sd1,range=(0,25)\n" +
			"rd=r1,wd=w1,iorate=max,elapsed=2\nrd=r2,wd=w2,iorate=max,elapsed=2\n",
			[]string{"r1 [/dev/sda] RND 4 KiB 100/0 TC8/QD1 AR 10–50% 2s ramp 1s", "r2 [/dev/sda] RND 4 KiB 100/0 TC8/QD1 AR 25% 2s ramp 1s"}},
		{"defaults", "sd=default,openflags=o_direct,threads=2\nsd=sd1,lun=/dev/sda\nsd=default,threads=6\nsd=sd2,lun=/dev/sdb\n" +
			"wd=default,xfersize=8k\nwd=wd1,sd=sd1\nwd=wd2,sd=sd2\nrd=default,iorate=max,elapsed=4\nrd=rd1,wd=wd1\nrd=rd2,wd=wd2,elapsed=6\n",
			[]string{"rd1 [/dev/sda] RND 8 KiB 100/0 TC2/QD1 4s ramp 1s", "rd2 [/dev/sdb] RND 8 KiB 100/0 TC6/QD1 6s ramp 1s"}},
		{"count= copies an sd", "sd=disk,lun=/dev/vd*,count=(1,2),openflags=o_direct\nsd=f,lun=/tmp/f%02d,count=(7,1),size=1g,openflags=directio\n" +
			"wd=wd1,sd=(disk1,disk2)\nwd=wd2,sd=f7\nrd=rd1,wd=wd1,iorate=max,elapsed=2\nrd=rd2,wd=wd2,iorate=max,elapsed=2\n",
			[]string{"rd1 [/dev/vd1 /dev/vd2] RND 4 KiB 100/0 TC8/QD1 2s ramp 1s", "rd2 [file:/tmp/f07:1073741824] RND 4 KiB 100/0 TC8/QD1 2s ramp 1s"}},
		{"files and the simulated drive", "sd=f1,lun=/tmp/data,size=256m,openflags=o_direct\nsd=s1,lun=sim:client,openflags=o_direct\nsd=f2,lun=/tmp/existing,openflags=o_direct\n" +
			"wd=wd1,sd=f*\nwd=wd2,sd=s1\nrd=rd1,wd=wd1,iorate=max,elapsed=2\nrd=rd2,wd=wd2,iorate=max,elapsed=2\n",
			[]string{"rd1 [file:/tmp/data:268435456 file:/tmp/existing] RND 4 KiB 100/0 TC8/QD1 2s ramp 1s", "rd2 [sim:client] RND 4 KiB 100/0 TC8/QD1 2s ramp 1s"}},
		{"sd=single and sd=range", twoSDs + "wd=wd1,sd=sd1\nrd=a,wd=wd1,sd=single,iorate=max,elapsed=2\nrd=b,wd=wd1,sd=range,iorate=max,elapsed=2\n",
			[]string{"a_sd1 [/dev/sda] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s", "a_sd2 [/dev/sdb] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s",
				"b_sd1-sd1 [/dev/sda] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s", "b_sd1-sd2 [/dev/sda /dev/sdb] RND 4 KiB 100/0 TC4/QD1 2s ramp 1s"}},
		{"an rd's sd= takes the wd's place; without wd=, wd=default", twoSDs + "wd=default,rdpct=50\nwd=wd1,sd=sd1\nrd=a,wd=wd1,sd=sd2,iorate=max,elapsed=2\nrd=b,sd=sd*,xfersize=8k,iorate=max,elapsed=2\n",
			[]string{"a [/dev/sdb] RND 4 KiB 50/50 TC4/QD1 2s ramp 1s", "b [/dev/sda /dev/sdb] RND 8 KiB 50/50 TC4/QD1 2s ramp 1s"}},
		{"a wd per sd runs as one", twoSDs + "wd=wd1,sd=sd1,rdpct=70\nwd=wd2,sd=sd2,rdpct=70\nrd=rd1,wd=wd*,iorate=1000,elapsed=2\n",
			[]string{"rd1 [/dev/sda /dev/sdb] RND 4 KiB 70/30 TC4/QD1 2s ramp 1s cap 500 IOPS"}},
		{"openflags on the rd, abbreviations, units", "sd=sd1,lu=/dev/sda,th=3\nwd=wd1,sd=sd1,xf=1m,rdp=0,se=seq\nrd=rd1,wd=wd1,io=10k,el=1m,wa=30,openf=o_direct\n",
			[]string{"rd1 [/dev/sda] SEQ 1024 KiB 0/100 TC1/QD3 1m30s ramp 30s cap 10240 IOPS"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, briefs(translate(t, c.src)))
		})
	}
}

func TestTranslatePlan(t *testing.T) {
	p := translate(t, "messagescan=no\nhistogram=(default,1,2)\ncompratio=1\n"+
		"sd=sd1,lun=/dev/sda,openflags=o_direct,hitarea=1m\nsd=sd2,lun=/tmp/f,size=1g,openflags=o_direct\n"+
		"wd=wd1,sd=sd1,rhpct=0\nwd=wd2,sd=(sd2,sd1)\nrd=rd1,wd=wd1,iorate=max,elapsed=2\nrd=rd2,wd=wd2,iorate=max,elapsed=2,forxfersize=(4k,8k),pause=1m\n")
	assert.Equal(t, []Target{{SD: "sd1", Lun: "/dev/sda", Spec: "/dev/sda", Pos: Pos{"parm", 4}},
		{SD: "sd2", Lun: "/tmp/f", Spec: "file:/tmp/f:1073741824", Pos: Pos{"parm", 5}}}, p.Targets)
	require.Len(t, p.Runs, 3)
	r := p.Runs[2]
	assert.Equal(t, "rd2-xfersize=8k", r.Name)
	assert.Equal(t, "rd2", r.RD)
	assert.Equal(t, Pos{"parm", 9}, r.Pos)
	assert.Equal(t, []string{"sd2", "sd1"}, r.SDs)
	assert.Equal(t, []string{"file:/tmp/f:1073741824", "/dev/sda"}, r.Targets)
	assert.Equal(t, []Setting{{"xfersize", "8k"}}, r.For)
	assert.Equal(t, 8, r.Threads)
	assert.Equal(t, 2*time.Second, r.Elapsed)
	assert.Equal(t, time.Minute, r.Pause)
	assert.Zero(t, p.Runs[0].Pause, "no pause before the first run")
	assert.Equal(t, time.Minute, p.Runs[1].Pause, "rd2's first run follows rd1's")
	var notes []string
	for _, n := range p.Notes {
		notes = append(notes, n.Pos.String()+" "+n.Param)
	}
	assert.Equal(t, []string{"parm:1 messagescan=no", "parm:2 histogram=(default,1,2)", "parm:3 compratio=1", "parm:4 hitarea=1m"}, notes)
	for _, r := range p.Runs {
		assert.NoError(t, r.Workload.Validate(512))
	}
}

func TestTranslateRefuses(t *testing.T) {
	const sd = "sd=sd1,lun=/dev/sda,openflags=o_direct\n"
	const wd = "wd=wd1,sd=sd1\n"
	const rd = "rd=rd1,wd=wd1,iorate=max,elapsed=2\n"
	for _, c := range []struct{ src, want string }{
		// general
		{"compratio=2\n" + sd + wd + rd, "parm:1: compratio=2: not supported: ptsrun writes incompressible data: only compratio=1 is what it does"},
		{"dedupratio=2\n" + sd + wd + rd, "parm:1: dedupratio=2: not supported: ptsrun writes no two blocks alike: only dedupratio=1 is what it does"},
		{"dedupunit=4k\n" + sd + wd + rd, "parm:1: dedupunit=4k: not supported: ptsrun writes no two blocks alike: only dedupratio=1 is what it does"},
		{"data_errors=10\n" + sd + wd + rd, "parm:1: data_errors=10: not supported: ptsrun stops a workload at its first I/O error: only data_errors=1 is what it does"},
		{"validate=yes\n" + sd + wd + rd, "parm:1: validate=yes: not supported: ptsrun measures performance and does not validate data (vdbench -v)"},
		{"startcmd=date\n" + sd + wd + rd, "parm:1: startcmd=date: not supported: ptsrun runs no commands from a parameter file"},
		{"loop=2\n" + sd + wd + rd, "parm:1: loop=2: not supported: ptsrun runs the rds once: repeat the command to repeat them"},
		{"frobnicate=1\n" + sd + wd + rd, "parm:1: frobnicate=1: vdbench knows no such general parameter"},
		// sd
		{"sd=sd1,lun=/dev/sda,openflags=(o_direct,o_sync)\n" + wd + rd, "parm:1: openflags=(o_direct,o_sync): not supported: ptsrun opens every target with O_DIRECT and nothing else (openflags=o_direct); o_sync is not what it does"},
		{"sd=sd1,lun=/dev/sda\n" + wd + rd, "parm:1: sd=sd1: no openflags=o_direct: vdbench would read and write lun /dev/sda through the page cache (and refuses a /dev/ lun on Linux); ptsrun always opens with O_DIRECT: add openflags=o_direct to the sd, wd or rd"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,hd=hd1\n" + wd + rd, "parm:1: hd=hd1: not supported: host definitions run vdbench on several hosts; ptsrun loads the targets of this host (ptsrun fio --fio-server loads several)"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,size=1g\n" + wd + rd, "parm:1: size=1g: not supported: size= on a device (sd=sd1, lun=/dev/sda): ptsrun loads the whole device; use range=(0,PCT) for part of it"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,range=(1g,2g)\n" + wd + rd, "parm:1: range=(1g,2g): not supported: a range in bytes; give it in percent of the lun, range=(10,20)"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,range=(50,150)\n" + wd + rd, "parm:1: range=(50,150): not supported: a range that wraps around the end of the lun (above 100 %)"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,offset=512\n" + wd + rd, "parm:1: offset=512: not supported: ptsrun does not shift I/O off the block boundaries: use range= for part of a lun"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,threads=0\n" + wd + rd, "parm:1: threads=0: the thread count: a whole number from 1 up"},
		{"sd=sd1,openflags=o_direct\n" + wd + rd, "parm:1: sd=sd1: no lun= (vdbench refuses an sd without one)"},
		{"sd=default,lun=/dev/sda\n" + rd, "parm:1: lun=/dev/sda: sd=default takes no lun= (vdbench refuses it)"},
		{"sd=sd1,lun=/tmp/a:b,openflags=o_direct\n" + wd + rd, "parm:1: lun=/tmp/a:b: not supported: a ':' in a file's name, which ptsrun's file:PATH:SIZE targets cannot hold"},
		{"sd=sd1,lun=/dev/sda,openflags=o_direct,lun=/dev/sdb\n" + wd + rd, "parm:1: lun=/dev/sdb: sd=sd1 has a lun already (lun=/dev/sda)"},
		// wd
		{sd + "wd=wd1,sd=sd1,seqpct=50\n" + rd, "parm:2: seqpct=50: vdbench knows no such workload definition (wd) parameter: a sequential workload is seekpct=seq (seekpct=0), or seekpct=eof to stop at the end of the lun"},
		{sd + "wd=wd1,sd=sd1,seekpct=poisson\n" + rd, "parm:2: seekpct=poisson: not supported: ptsrun's random I/O is uniform, without vdbench's Poisson-distributed seek distances"},
		{sd + "wd=wd1,sd=sd1,seekpct=101\n" + rd, "parm:2: seekpct=101: a percentage from 0 (sequential) to 100 (random)"},
		{sd + "wd=wd1,sd=sd1,xfersize=(4k,64k,4k)\n" + rd, "parm:2: xfersize=(4k,64k,4k): not supported: random sizes between a minimum and a maximum (min,max,align); give a distribution, xfersize=(4k,50,8k,50)"},
		{sd + "wd=wd1,sd=sd1,xfersize=(4k,50,8k,40)\n" + rd, "parm:2: xfersize=(4k,50,8k,40): the shares add up to 90 %, not 100 %"},
		{sd + "wd=wd1,sd=sd1,xfersize=1000\n" + rd, "parm:2: xfersize=1000: a transfer size is a multiple of 512 bytes (vdbench's rule) up to 1 GiB; 1000 is not"},
		{sd + "wd=wd1,sd=sd1,rdpct=70.5\n" + rd, "parm:2: rdpct=70.5: a percentage: a whole number from 0 to 100"},
		{sd + "wd=wd1,sd=sd1,rhpct=10\n" + rd, "parm:2: rhpct=10: not supported: ptsrun runs no cache hits (a hit re-reads or rewrites a small area); only rhpct=0 is what it does"},
		{sd + "wd=wd1,sd=sd1,skew=50\n" + rd, "parm:2: skew=50: not supported: ptsrun runs the workloads of an rd as one, so a skew between them is not its (one wd has skew=100)"},
		{sd + "wd=wd1,sd=sd1,iorate=100\n" + rd, "parm:2: iorate=100: not supported: a workload's own fixed rate is not ptsrun's: give the rate in the rd (iorate=)"},
		{sd + "wd=wd1,sd=sd1,hotband=(10,20)\n" + rd, "parm:2: hotband=(10,20): not supported: ptsrun has no hot bands"},
		{sd + "wd=wd1,sd=sd9\n" + rd, "parm:2: sd=sd9: no sd=sd9 is defined"},
		{sd + "wd=wd1\n" + rd, "parm:2: wd=wd1: no sd=: the workload loads no storage"},
		{sd + "sd=sd2,lun=/dev/sdb,openflags=o_direct\nwd=wd1,sd=sd1,rdpct=70\nwd=wd2,sd=sd2\nrd=rd1,wd=wd*,iorate=max\n",
			"parm:5: rd=rd1: not supported: wd=wd1 and wd=wd2 run at once and differ (RND 4 KiB 100/0 TC8/QD1, the first 1s a ramp; RND 4 KiB 70/30 TC8/QD1, the first 1s a ramp): ptsrun runs one workload at a time on a set of targets"},
		{sd + "sd=sd2,lun=/dev/sdb,openflags=o_direct\nsd=sd3,lun=/dev/sdc,openflags=o_direct\nwd=wd1,sd=sd1\nwd=wd2,sd=(sd2,sd3)\nrd=rd1,wd=wd*,iorate=100\n",
			"parm:6: iorate=100: not supported: wd=wd1 and wd=wd2 share the rate but load 1 and 2 sds, so their sds run at different rates; ptsrun gives each target the same"},
		{sd + "wd=wd1,sd=sd1\nwd=wd2,sd=sd1\nrd=rd1,wd=wd*,iorate=max\n", "parm:4: rd=rd1: not supported: sd=sd1 is loaded by two workloads at once; ptsrun runs one workload on a target"},
		{sd + "sd=sd2,lun=/dev/sdb,openflags=o_direct,threads=2\nwd=wd1,sd=sd*\n" + rd, "parm:4: rd=rd1: not supported: wd=wd1 loads sd=sd1 with 8 threads and sd=sd2 with 2; ptsrun loads every target of a run alike (rd threads= gives them one count)"},
		{sd + "sd=sd2,lun=/dev/sdb,openflags=o_direct,range=(0,50)\nwd=wd1,sd=sd*\n" + rd, "parm:4: rd=rd1: not supported: wd=wd1 loads sd=sd1 and sd=sd2 over different ranges; ptsrun loads every target of a run over one (a wd range= gives them one)"},
		{sd + "sd=sd2,lun=/dev/sda,openflags=o_direct\nwd=wd1,sd=sd*\n" + rd, "parm:4: rd=rd1: sd=sd1 and sd=sd2 load the same lun /dev/sda at once"},
		{"sd=f1,lun=/tmp/f,size=1g,openflags=o_direct\nsd=f2,lun=/tmp/f,size=2g,openflags=o_direct\nwd=w1,sd=f1\nwd=w2,sd=f2\nrd=r1,wd=w1,iorate=max,elapsed=2\nrd=r2,wd=w2,iorate=max,elapsed=2\n",
			"parm:2: sd=f2: lun /tmp/f is file:/tmp/f:2147483648 here and file:/tmp/f:1073741824 in sd=f1: one lun, one size"},
		// rd
		{sd + wd + "rd=rd1,wd=wd1,elapsed=2\n", "parm:3: rd=rd1: no iorate=: write iorate=max to run as fast as the target goes, or a rate"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=curve\n", "parm:3: iorate=curve: not supported: ptsrun runs no performance curves (a maximum run, then a share of it): list the rates, iorate=(100,200,...)"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=0\n", "parm:3: iorate=0: iorate= is max, or I/O rates above zero (a list runs each)"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,interval=0.5\n", "parm:3: interval=0.5: whole seconds of 1 or more (vdbench reports each interval= seconds)"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,interval=5,elapsed=12\n", "parm:3: rd=rd1: elapsed=12, warmup=0: whole numbers of intervals (5 s), as vdbench reports them"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,elapsed=1\n", "parm:3: rd=rd1: elapsed=1: at least twice the interval (1 s): vdbench reports a warm-up interval and one more at least"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,elapsed=2.5\n", "parm:3: elapsed=2.5: seconds (or m, h): a whole number from 1 up"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=100,distribution=d\n", "parm:3: distribution=d: not supported: ptsrun caps the rate of its I/O loop and has no arrival-time distribution"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,maxdata=1t\n", "parm:3: maxdata=1t: not supported: ptsrun runs for a time: use elapsed="},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,forhitarea=(1m,2m)\n", "parm:3: forhitarea=(1m,2m): not supported: ptsrun runs no cache hits (rhpct, whpct), whose area hitarea sizes"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,forxfersize=(4k,4k)\n", "parm:3: forxfersize=(4k,4k): 4k appears twice: two runs of one name"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,forthreads=(1-3,0.5)\n", "parm:3: forthreads=(1-3,0.5): a thread count: a whole number from 1 up"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,forseekpct=eof\n", "parm:3: forseekpct=eof: numbers only (vdbench's for-loops take numbers)"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,forcompratio=(1,2)\n", "parm:3: forcompratio=(1,2): not supported: ptsrun writes incompressible data: only compratio=1 is what it does"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,fwd=fwd1\n", "parm:3: fwd=fwd1: not supported: file system workloads (fsd, fwd) are not ptsrun's"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,sd=setsof4\n", "parm:3: sd=setsof4: not supported: sets of sds chosen at random by vdbench's own generator; list them, or use sd=single or sd=range"},
		{sd + wd + "rd=rd1,wd=wd9,iorate=max\n", "parm:3: wd=wd9: no wd=wd9 is defined"},
		{sd + wd + "rd=rd1,iorate=max\n", "parm:3: rd=rd1: no wd= (and no sd=): nothing to run"},
		{sd + wd + "rd=default,wd=wd1\nrd=rd1,wd=wd1,iorate=max\n", "parm:4: wd=wd1: rd=rd1 has its wd= already (wd=wd1 at parm:3): vdbench takes one, wd=(wd1,wd2)"},
		{sd + wd + rd + "rd=rd1,wd=wd1,iorate=max\n", "parm:4: rd=rd1: rd=rd1 is defined twice (first at parm:3)"},
		{sd + wd + "rd=a,wd=wd1,iorate=max,sd=single\nrd=a_sd1,wd=wd1,iorate=max\n", "parm:4: rd=a_sd1: a second run named a_sd1 (the first from parm:3): rd names are one each"},
		{sd + wd, "parm:1: no run definition (rd=): nothing to run"},
		{sd + wd + "rd=../x,wd=wd1,iorate=max\n", "parm:3: rd=../x: not supported: the run's name \"../x\": ptsrun names a cell, and the fio engine its files, after the run: letters, digits and _ - . = + only"},
		{sd + wd + `rd="a b",wd=wd1,iorate=max` + "\n", "parm:3: rd=a b: not supported: the run's name \"a b\": ptsrun names a cell, and the fio engine its files, after the run: letters, digits and _ - . = + only"},
		{sd + wd + "rd=rd1,wd=wd1,iorate=max,forthreads=1000\n", "parm:3: rd=rd1: invalid workload: thread count 1000 outside 1…256"},
	} {
		t.Run(c.want, func(t *testing.T) {
			f, err := Parse("parm", []byte(c.src), Options{})
			if err == nil {
				_, err = Translate(f)
			}
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, c.want, err.Error())
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// Every refusal reason is used and every keyword vdbench knows has a fate.
func TestEveryKeywordHasAFate(t *testing.T) {
	sd := "sd=sd1,lun=/dev/sda,openflags=o_direct\n"
	wd := "wd=wd1,sd=sd1\n"
	rd := "rd=rd1,wd=wd1,iorate=max,elapsed=2\n"
	for _, c := range []struct {
		table  []keyword
		render func(kv string) string
	}{
		{generalKeywords, func(kv string) string { return kv + "\n" + sd + wd + rd }},
		{sdKeywords, func(kv string) string { return "sd=sd1,lun=/dev/sda,openflags=o_direct," + kv + "\n" + wd + rd }},
		{wdKeywords, func(kv string) string { return sd + "wd=wd1,sd=sd1," + kv + "\n" + rd }},
		{rdKeywords, func(kv string) string { return sd + wd + "rd=rd1,wd=wd1,iorate=max,elapsed=2," + kv + "\n" }},
	} {
		for _, k := range c.table {
			for _, name := range append([]string{k.name}, append(k.also, k.exact...)...) {
				if k.family {
					name += "x"
				}
				if name == "sd" || name == "wd" {
					continue
				}
				src := c.render(name + "=2")
				f, err := Parse("parm", []byte(src), Options{})
				if err == nil {
					_, err = Translate(f)
				}
				if err != nil {
					assert.NotContains(t, err.Error(), "knows no such", name)
					assert.NotContains(t, err.Error(), "not supported: \n", name)
					assert.False(t, strings.HasSuffix(err.Error(), "not supported: "), "%s: a refusal without its reason", name)
				}
			}
		}
	}
}

func TestSameWorkload(t *testing.T) {
	a := engine.Workload{Access: engine.Random, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100}
	b := a
	assert.True(t, sameWorkload(a, b))
	b.RandomPct = 50
	assert.False(t, sameWorkload(a, b))
}
