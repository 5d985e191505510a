package security

import (
	"fmt"
	"testing"

	"github.com/chakshu-dev/chakshu/graph/graphtest"
)

type gqlRespT = graphtest.Resp

type clientT struct {
	name string
	c    *graphtest.Client
}

// totalCounts runs a query of aliased connections q0…q(n-1) and returns each totalCount.
func totalCounts(t *testing.T, c *graphtest.Client, q string, n int) []int {
	t.Helper()
	var d map[string]struct{ TotalCount int }
	c.Do(q, nil).OK(t, &d)
	out := make([]int, n)
	for i := range out {
		v, ok := d[fmt.Sprint("q", i)]
		if !ok {
			t.Fatalf("%s: no q%d in the answer", q, i)
		}
		out[i] = v.TotalCount
	}
	return out
}
