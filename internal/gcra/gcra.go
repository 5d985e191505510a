// Package gcra is the generic cell rate algorithm: a token bucket kept as
// one number, the theoretical arrival time (TAT) of the next request, so a
// row in the shared database can hold it and a compare-and-swap on that
// number spends from it without two processes both spending the last one.
// golang.org/x/time/rate keeps its bucket in one process's memory, which
// cannot limit several processes.
package gcra

import "time"

// Cell is a bucket of Burst requests refilled one every Every.
type Cell struct {
	Every time.Duration
	Burst int
}

// Due is how long until a request may go given the bucket's tat (unix ns;
// 0 for a full bucket) at now (unix ns), and the tat once it has gone.
// reserve keeps that many requests of the burst out of this request's
// reach (0: it may take the last one). A wait above 0 leaves tat as it was:
// nothing is spent.
func (c Cell) Due(tat, now int64, reserve int) (wait time.Duration, next int64) {
	tolerance := int64(c.Burst-1-reserve) * int64(c.Every)
	at := max(tat, now)
	if d := at - tolerance - now; d > 0 {
		return time.Duration(d), tat
	}
	return 0, at + int64(c.Every)
}

// Room is how long until n requests may go at once, given tat at now,
// spending nothing; 0 when they may go now. n past what the burst allows
// past reserve never fits: the wait then is that of the n-th request as if
// the bucket stayed full.
func (c Cell) Room(tat, now int64, reserve, n int) time.Duration {
	wait, _ := c.Due(max(tat, now)+int64(n-1)*int64(c.Every), now, reserve)
	return wait
}

// Left is how many requests may go at once now given tat, spending
// nothing, past reserve.
func (c Cell) Left(tat, now int64, reserve int) int {
	room := now + int64(c.Burst-1-reserve)*int64(c.Every) - max(tat, now)
	if room < 0 {
		return 0
	}
	return int(room/int64(c.Every)) + 1
}
