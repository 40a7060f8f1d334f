package main

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Data flows one way (DESIGN.md): a package may import only packages of a
// lower layer. steadystate is pure math and imports no project package.
var layer = map[string]int{
	"steadystate": 0, "engine": 1, "device": 2, "precondition": 3, "pts": 4,
	"matrix": 5, "pdfreport": 6, "golden": 7, "cmd": 8,
}

const module = "github.com/ptsrun/ptsrun/"

func layerOf(pkg string) (string, int) {
	top := strings.SplitN(strings.TrimPrefix(pkg, module), "/", 2)[0]
	l, ok := layer[top]
	if !ok {
		return top, -1
	}
	return top, l
}

func TestDependenciesFlowOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "../../...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		from, lf := layerOf(p.ImportPath)
		require.GreaterOrEqual(t, lf, 0, "package %s has no layer in DESIGN.md", p.ImportPath)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			to, lt := layerOf(imp)
			if from == "steadystate" {
				t.Errorf("steadystate imports %s: it must import no project package", imp)
			}
			if lt > lf || (lt == lf && from != to) {
				t.Errorf("%s imports %s: data flows the other way", p.ImportPath, imp)
			}
		}
	}
}
