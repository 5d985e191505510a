package gcra

import (
	"testing"
	"time"
)

// TestDue: a bucket of 3 refilled every second admits 3 at once, refuses the
// 4th for exactly the time until one refill, admits one after it, and a
// reserve keeps part of the burst away.
func TestDue(t *testing.T) {
	c := Cell{Every: time.Second, Burst: 3}
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).UnixNano()
	step := func(tat, at int64, reserve int) (time.Duration, int64) { return c.Due(tat, at, reserve) }
	cases := []struct {
		name    string
		spent   int   // requests admitted at now before this one
		later   int64 // ns after now this one comes
		reserve int
		want    time.Duration
	}{
		{"full bucket", 0, 0, 0, 0},
		{"last of the burst", 2, 0, 0, 0},
		{"one past the burst", 3, 0, 0, time.Second},
		{"one past, 1 ms before the refill", 3, int64(999 * time.Millisecond), 0, time.Millisecond},
		{"one past, at the refill", 3, int64(time.Second), 0, 0},
		{"reserve keeps the last", 2, 0, 1, time.Second},
		{"reserve leaves the rest", 1, 0, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tat int64
			for i := range tc.spent {
				w, n := step(tat, now, 0)
				if w != 0 {
					t.Fatalf("request %d waited %v", i+1, w)
				}
				tat = n
			}
			w, n := step(tat, now+tc.later, tc.reserve)
			if w != tc.want {
				t.Errorf("wait %v, want %v", w, tc.want)
			}
			if w > 0 && n != tat {
				t.Errorf("a refused request moved the tat from %d to %d", tat, n)
			}
			if w == 0 && n <= tat {
				t.Errorf("an admitted request did not move the tat (%d → %d)", tat, n)
			}
		})
	}
}
