package pts

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every package names a metric by these: a table's head, a row of
// several latencies, a headline after its cell.
func TestMetricHeadShortQuote(t *testing.T) {
	for _, c := range []struct {
		m                  Metric
		head, short, quote string
	}{
		{MetricIOPS, "IOPS", "IOPS", "IOPS"},
		{MetricMBps, "MB/s", "MB/s", "MB/s"},
		{MetricLatMean, "Average ms", "avg", "average ms"},
		{MetricLatMax, "Maximum ms", "max", "maximum ms"},
		{MetricLatP99999, "99.999 % ms", "99.999 %", "99.999 % ms"},
		{MetricLatP99, "99 % ms", "99 % response time", "ms"},
		{MetricLatP9999, "99.99 % response time", "99.99 % response time", "ms"},
	} {
		assert.Equal(t, c.head, c.m.Head(), "%s head", c.m)
		assert.Equal(t, c.short, c.m.Short(), "%s short", c.m)
		assert.Equal(t, c.quote, c.m.Quote(), "%s quote", c.m)
	}
}
