package pdfreport

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every test pts defines has its pages registered by a page file here: a
// new test without one fails, instead of leaving its results out of the
// report.
func TestEveryTestHasPages(t *testing.T) {
	for _, td := range reportedTests() {
		assert.NotNil(t, pagesOf[td.ID].report, "test %s: no page file registers its pages", td.ID)
	}
}
