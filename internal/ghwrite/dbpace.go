package ghwrite

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/gcra"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// DBBudget keeps the budget in the installations table, so every worker
// process sharing the database paces by one count and honours one wait.
//
// Each window is a token bucket kept as one timestamp (GCRA, the generic
// cell rate algorithm: the theoretical arrival time of the next write),
// changed by compare-and-swap, so concurrent processes never both spend the
// last write (package gcra).
type DBBudget struct {
	db      *store.DB
	windows []Window
}

var _ Budget = (*DBBudget)(nil)

// NewDBBudget paces by windows (GitHubWindows for github.com; a window with
// N 0 is left out).
func NewDBBudget(db *store.DB, windows []Window) *DBBudget {
	b := &DBBudget{db: db}
	for _, w := range windows {
		if w.N > 0 && w.Per > 0 {
			b.windows = append(b.windows, w)
		}
	}
	return b
}

// Windows are the pacing windows of the settings: perMinute writes a
// minute and perHour an hour (CHAKSHU_GITHUB_WRITES_PER_MINUTE, _PER_HOUR).
func Windows(perMinute, perHour int) []Window {
	return []Window{{N: perMinute, Per: time.Minute}, {N: perHour, Per: time.Hour}}
}

// cell is a window as GCRA parameters: a write every t on average, burst at
// once, and the burst reserved from Starting writes.
type cell struct {
	gcra.Cell
	spare int
}

// cellOf keeps any Per-long interval within N writes: a bucket of burst
// refilled every Per/(N-burst) admits at most burst + (N-burst) in one Per.
func cellOf(w Window) cell {
	burst := max(1, w.N/8)
	refill := max(1, w.N-burst)
	return cell{Cell: gcra.Cell{Every: w.Per / time.Duration(refill), Burst: burst}, spare: max(1, burst/2)}
}

// due is how long until a write of pri may go given the window's tat (the
// theoretical arrival time, unix ns), and the tat after it goes.
func (c cell) due(tat, now int64, pri Priority) (wait time.Duration, next int64) {
	return c.Due(tat, now, c.reserve(pri))
}

// reserve is how much of the burst a write of pri may not take.
func (c cell) reserve(pri Priority) int {
	if pri == Starting {
		return c.spare
	}
	return 0
}

func (b *DBBudget) read(ctx context.Context, inst int64) (*ent.Installation, error) {
	in, err := b.db.Installation.Query().Where(installation.GithubID(inst)).
		Select(installation.FieldWritePace, installation.FieldGithubWaitUntil, installation.FieldGithubWaitReason, installation.FieldSecondaryHits).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return in, err
}

func holdOf(in *ent.Installation) Hold {
	h := Hold{Reason: in.GithubWaitReason, Hits: in.SecondaryHits}
	if in.GithubWaitUntil != nil {
		h.Until = *in.GithubWaitUntil
	}
	return h
}

// Admit implements Budget.
func (b *DBBudget) Admit(ctx context.Context, inst int64, pri Priority, now time.Time) (time.Duration, Hold, error) {
	for range 20 {
		in, err := b.read(ctx, inst)
		if err != nil || in == nil {
			return 0, Hold{}, err // an installation not stored goes unpaced
		}
		hold := holdOf(in)
		if hold.Until.After(now) {
			return hold.Until.Sub(now), hold, nil
		}
		if len(b.windows) == 0 {
			return 0, hold, nil
		}
		tats := parseTATs(in.WritePace, len(b.windows))
		var wait time.Duration
		next := make([]int64, len(tats))
		for i, w := range b.windows {
			d, n := cellOf(w).due(tats[i], now.UnixNano(), pri)
			wait, next[i] = max(wait, d), n
		}
		if wait > 0 {
			return wait, hold, nil
		}
		res, err := b.db.ExecWrite(ctx, b.db.Rebind(`UPDATE installations SET write_pace = ? WHERE github_id = ? AND write_pace = ?`),
			formatTATs(next), inst, in.WritePace)
		if err != nil {
			return 0, hold, fmt.Errorf("spend write budget: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return 0, hold, nil
		}
		// Another process spent from this budget meanwhile: read it again.
	}
	return 0, Hold{}, errors.New("spend write budget: too much contention")
}

// Room is how long until n writes of pri may go at once for inst at now,
// GitHub's recorded wait included, spending nothing: how long a new review
// would wait for its budget (the trigger benchmark waits it out).
func (b *DBBudget) Room(ctx context.Context, inst int64, pri Priority, n int, now time.Time) (time.Duration, error) {
	in, err := b.read(ctx, inst)
	if err != nil || in == nil {
		return 0, err
	}
	return b.room(in, pri, n, now), nil
}

func (b *DBBudget) room(in *ent.Installation, pri Priority, n int, now time.Time) time.Duration {
	var wait time.Duration
	if h := holdOf(in); h.Until.After(now) {
		wait = h.Until.Sub(now)
	}
	tats := parseTATs(in.WritePace, len(b.windows))
	for i, w := range b.windows {
		c := cellOf(w)
		wait = max(wait, c.Room(tats[i], now.UnixNano(), c.reserve(pri), n))
	}
	return wait
}

// Standing is an installation's content budget at a moment (the Status page).
type Standing struct {
	// Windows are the pacing windows with the writes each allows at once.
	Windows []WindowLeft
	// NewReviewIn is how long until a new review's check run and dispatch
	// may go (0: now); GitHub's recorded wait included.
	NewReviewIn time.Duration
}

// WindowLeft is one window and how many writes of a review under way it
// allows at once now (at most its burst, an eighth of N).
type WindowLeft struct {
	Window
	Left int
}

// StandingOf is in's budget at now, read from the row as loaded (every
// field), spending nothing.
func (b *DBBudget) StandingOf(in *ent.Installation, now time.Time) Standing {
	st := Standing{NewReviewIn: b.room(in, Starting, 2, now)}
	tats := parseTATs(in.WritePace, len(b.windows))
	for i, w := range b.windows {
		st.Windows = append(st.Windows, WindowLeft{Window: w, Left: cellOf(w).Left(tats[i], now.UnixNano(), 0)})
	}
	return st
}

// Held implements Budget.
func (b *DBBudget) Held(ctx context.Context, inst int64) (Hold, error) {
	in, err := b.read(ctx, inst)
	if err != nil || in == nil {
		return Hold{}, err
	}
	return holdOf(in), nil
}

// Record implements Budget.
func (b *DBBudget) Record(ctx context.Context, inst int64, until time.Time, reason string, growing bool, now time.Time) (time.Time, error) {
	for range 20 {
		in, err := b.read(ctx, inst)
		if err != nil {
			return until, err
		}
		if in == nil {
			return until, nil
		}
		hits := in.SecondaryHits
		if growing {
			hits++
			until = now.Add(gh.Growing(hits))
		}
		if in.GithubWaitUntil != nil && in.GithubWaitUntil.After(until) {
			until = *in.GithubWaitUntil // another process kept a longer wait
		}
		n, err := b.db.Installation.Update().
			Where(installation.GithubID(inst), installation.SecondaryHits(in.SecondaryHits)).
			SetGithubWaitUntil(until).SetGithubWaitReason(reason).SetSecondaryHits(hits).Save(ctx)
		if err != nil {
			return until, fmt.Errorf("record GitHub's wait: %w", err)
		}
		if n == 1 {
			return until, nil
		}
	}
	return until, errors.New("record GitHub's wait: too much contention")
}

// Clear implements Budget.
func (b *DBBudget) Clear(ctx context.Context, inst int64) error {
	_, err := b.db.ExecWrite(ctx, b.db.Rebind(`UPDATE installations SET secondary_hits = 0 WHERE github_id = ? AND secondary_hits > 0`), inst)
	return err
}

func parseTATs(s string, n int) []int64 {
	out := make([]int64, n)
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return out // the windows changed: start full
	}
	for i, p := range parts {
		out[i], _ = strconv.ParseInt(p, 10, 64)
	}
	return out
}

func formatTATs(ts []int64) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = strconv.FormatInt(t, 10)
	}
	return strings.Join(parts, ",")
}
