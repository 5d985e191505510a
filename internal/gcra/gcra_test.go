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

// TestRoom: Room(n) is 0 exactly when n requests in a row are admitted, and
// otherwise the wait after which they are.
func TestRoom(t *testing.T) {
	c := Cell{Every: time.Second, Burst: 4}
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).UnixNano()
	cases := []struct {
		name     string
		spent, n int
		reserve  int
		want     time.Duration
	}{
		{"two in a full bucket", 0, 2, 0, 0},
		{"the whole burst", 0, 4, 0, 0},
		{"two with two left", 2, 2, 0, 0},
		{"two with one left", 3, 2, 0, time.Second},
		{"two with two left past a reserve of one", 2, 2, 1, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tat int64
			for range tc.spent {
				_, tat = c.Due(tat, now, 0)
			}
			got := c.Room(tat, now, tc.reserve, tc.n)
			if got != tc.want {
				t.Fatalf("room %v, want %v", got, tc.want)
			}
			// Independently: after waiting got, n requests in a row go.
			at := now + int64(got)
			for i := range tc.n {
				w, next := c.Due(tat, at, tc.reserve)
				if w != 0 {
					t.Fatalf("request %d of %d after the room's wait waited %v", i+1, tc.n, w)
				}
				tat = next
			}
		})
	}
}

// TestLeft: Left is exactly how many requests in a row Due then admits.
func TestLeft(t *testing.T) {
	c := Cell{Every: time.Second, Burst: 4}
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		name          string
		spent         int
		later         time.Duration
		reserve, want int
	}{
		{"full", 0, 0, 0, 4},
		{"full past a reserve of two", 0, 0, 2, 2},
		{"one spent", 1, 0, 0, 3},
		{"all spent", 4, 0, 0, 0},
		{"all spent, 999 ms on", 4, 999 * time.Millisecond, 0, 0},
		{"all spent, a refill on", 4, time.Second, 0, 1},
		{"all spent past a reserve", 4, time.Second, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tat int64
			for range tc.spent {
				_, tat = c.Due(tat, now, 0)
			}
			at := now + int64(tc.later)
			if got := c.Left(tat, at, tc.reserve); got != tc.want {
				t.Fatalf("left %d, want %d", got, tc.want)
			}
			admitted := 0 // independently: count what Due admits in a row
			for {
				w, next := c.Due(tat, at, tc.reserve)
				if w > 0 {
					break
				}
				admitted, tat = admitted+1, next
			}
			if admitted != tc.want {
				t.Fatalf("Due admitted %d in a row, Left said %d", admitted, tc.want)
			}
		})
	}
}
