package telemetry_test

import (
	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

func init() { telemetry.GoldenFile = goldentest.File }
