package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
)

func (p Probe) path(rel string) string     { return p.FS.Path(rel) }
func (p Probe) list(rel string) []string   { return p.FS.Names(rel) }
func (p Probe) read(rel string) string     { return p.FS.Read(rel) }
func (p Probe) realPath(rel string) string { return p.FS.RealPath(rel) }

// hwmonSource reads a hwmon directory: an NVMe controller's (name
// "nvme": temp1 is the composite temperature, labelled "Composite", with
// its threshold in temp1_max and CCTEMP in temp1_crit; temp2… are
// "Sensor 1"…) or a drive's (drivetemp: temp1, its limits in temp1_max
// and temp1_crit). Values are in millidegrees Celsius.
type hwmonSource struct {
	fs  device.FS
	dir string // relative to fs.Root
	dev string
}

func (h hwmonSource) Name() string   { return SourceHwmon }
func (h hwmonSource) Device() string { return h.dev }
func (h hwmonSource) Where() string  { return "/" + h.dir }

// hwmonFiles are the attributes read of each channel.
var hwmonFiles = []string{"input", "label", "max", "crit"}

func (h hwmonSource) Read(ctx context.Context) (Reading, error) {
	p := Probe{FS: h.fs}
	files := map[string]string{}
	var failed []string
	for _, e := range p.list(h.dir) {
		ch, attr, ok := hwmonAttr(e)
		if !ok || !slices.Contains(hwmonFiles, attr) {
			continue
		}
		b, err := os.ReadFile(p.path(h.dir + "/" + e))
		if err != nil {
			// A sensor the drive does not report now reads as an error
			// (EIO, ENODATA); the others still count.
			if attr == "input" {
				failed = append(failed, fmt.Sprintf("%s: %v", "/"+h.dir+"/"+e, unwrapPath(err)))
			}
			continue
		}
		files["temp"+strconv.Itoa(ch)+"_"+attr] = strings.TrimSpace(string(b))
	}
	r, err := parseHwmon(h.dev, files)
	if err != nil {
		if len(failed) > 0 {
			err = fmt.Errorf("%w (%s)", err, strings.Join(failed, "; "))
		}
		return Reading{}, &Error{Source: SourceHwmon, Device: h.dev, Err: fmt.Errorf("%s: %w", "/"+h.dir, err)}
	}
	return r, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// hwmonAttr splits "temp3_input" into 3 and "input".
func hwmonAttr(name string) (int, string, bool) {
	rest, ok := strings.CutPrefix(name, "temp")
	if !ok {
		return 0, "", false
	}
	n, attr, ok := strings.Cut(rest, "_")
	if !ok {
		return 0, "", false
	}
	ch, err := strconv.Atoi(n)
	if err != nil || ch < 1 || ch > 64 {
		return 0, "", false
	}
	return ch, attr, true
}

// parseHwmon reads the files of a hwmon directory ("temp1_input" →
// content): the channel labelled "Composite", else the first, is the
// drive's temperature and its max and crit its limits; the others are
// sensors.
func parseHwmon(dev string, files map[string]string) (Reading, error) {
	milli := func(s string) (float64, bool) {
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || v < -273150 || v > 1000000 {
			return 0, false
		}
		return float64(v) / 1000, true
	}
	type channel struct {
		n       int
		label   string
		celsius float64
	}
	var chans []channel
	for name, v := range files {
		ch, attr, ok := hwmonAttr(name)
		if !ok || attr != "input" {
			continue
		}
		c, ok := milli(v)
		if !ok {
			continue
		}
		// A label is a driver's text: kept as valid UTF-8, as JSON keeps it.
		label := strings.ToValidUTF8(strings.TrimSpace(files[fmt.Sprintf("temp%d_label", ch)]), "\uFFFD")
		chans = append(chans, channel{n: ch, label: label, celsius: c})
	}
	if len(chans) == 0 {
		return Reading{}, errors.New("no temperature readable")
	}
	slices.SortFunc(chans, func(a, b channel) int { return a.n - b.n })
	comp := 0
	for i, c := range chans {
		if c.label == "Composite" {
			comp = i
			break
		}
	}
	r := Reading{Device: dev, Sources: []string{SourceHwmon}}
	c := chans[comp]
	r.Temperature = known(c.celsius, SourceHwmon)
	if v, ok := milli(files[fmt.Sprintf("temp%d_max", c.n)]); ok {
		r.WarningTemp = known(v, SourceHwmon)
	}
	if v, ok := milli(files[fmt.Sprintf("temp%d_crit", c.n)]); ok {
		r.CriticalTemp = known(v, SourceHwmon)
	}
	var sensors []Sensor
	for i, c := range chans {
		if i == comp {
			continue
		}
		label := c.label
		if label == "" {
			label = fmt.Sprintf("temp%d", c.n)
		}
		sensors = append(sensors, Sensor{Label: label, Celsius: c.celsius})
	}
	if len(sensors) > 0 {
		r.Sensors = known(sensors, SourceHwmon)
	}
	return r, nil
}
