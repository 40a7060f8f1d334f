package pts

import (
	"fmt"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
)

// maxOperatorName keeps a name within the report header's band.
const maxOperatorName = 60

// NewOperator checks what the operator states (--tested-by, --lab and
// each --dut-note KEY=VALUE, as given) for run.json and the report header.
func NewOperator(testedBy, lab string, notes []string) (Operator, error) {
	op := Operator{TestedBy: strings.TrimSpace(testedBy), Lab: strings.TrimSpace(lab)}
	for _, f := range []struct{ flag, v string }{{"--tested-by", op.TestedBy}, {"--lab", op.Lab}} {
		if err := device.CheckControl(f.v); err != nil {
			return op, fmt.Errorf("%s %q: %w", f.flag, f.v, err)
		}
		if len(f.v) > maxOperatorName {
			return op, fmt.Errorf("%s %q: at most %d bytes, to fit the report header", f.flag, f.v, maxOperatorName)
		}
	}
	var err error
	op.DUTNotes, err = device.ParseNotes(notes)
	return op, err
}
