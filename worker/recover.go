package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent/hookcursor"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// GitHub never redelivers a failed webhook delivery by itself, and a delivery
// answered after 10 s counts as failed (docs "Handling failed webhook
// deliveries"). The Recoverer reads the App's delivery log and asks GitHub to
// redeliver each failed delivery Chakshu has not stored.

// HookDeliveries is what the Recoverer needs of GitHub, as the App (JWT):
// ghwrite.AppHooks (the redelivery is a write).
type HookDeliveries interface {
	ListHookDeliveries(ctx context.Context, opts *github.ListCursorOptions) ([]*github.HookDelivery, *github.Response, error)
	RedeliverHookDelivery(ctx context.Context, deliveryID int64) (*github.HookDelivery, *github.Response, error)
}

var _ HookDeliveries = (*ghwrite.AppHooks)(nil)

// RecoverConfig builds a Recoverer.
type RecoverConfig struct {
	DB  *store.DB
	Log *slog.Logger
	// GitHub lists and redelivers the App's webhook deliveries.
	GitHub HookDeliveries
	// AppID keys the stored cursor.
	AppID int64
	// Interval is how often the log is read; 0 means a minute. One worker
	// process reads it per interval (the cursor row is claimed).
	Interval time.Duration
	// Pace is the wait between two redelivery requests; 0 means 500 ms.
	Pace time.Duration
	// MaxPages bounds one pass (100 deliveries a page); 0 means 20.
	MaxPages int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recoverer is the webhook recovery loop.
type Recoverer struct{ cfg RecoverConfig }

var _ Loop = (*Recoverer)(nil)

// NewRecoverer validates cfg.
func NewRecoverer(cfg RecoverConfig) (*Recoverer, error) {
	if cfg.DB == nil || cfg.Log == nil || cfg.GitHub == nil || cfg.AppID == 0 {
		return nil, errors.New("recoverer: DB, Log, GitHub and AppID are required")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Minute
	}
	if cfg.Pace <= 0 {
		cfg.Pace = 500 * time.Millisecond
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Recoverer{cfg: cfg}, nil
}

// Name implements Loop.
func (r *Recoverer) Name() string { return "webhook-recovery" }

// Run implements Loop.
func (r *Recoverer) Run(ctx context.Context) error {
	return Repeat(logging.With(ctx, r.cfg.Log), "webhook recovery", nil, r.cfg.Interval, func(ctx context.Context) error {
		_, err := r.Pass(ctx, false)
		return err
	})
}

// Pass reads the deliveries newer than the stored cursor and asks for each
// failed one Chakshu has not stored to be redelivered; it returns how many
// it asked for. Unless force, it does nothing when another worker read the
// log less than an interval ago.
func (r *Recoverer) Pass(ctx context.Context, force bool) (int, error) {
	now := r.cfg.Now()
	cur, claimed, err := r.claim(ctx, now, force)
	if err != nil || !claimed {
		return 0, err
	}
	// Newest first; stop at the cursor. A GUID is settled when any attempt
	// succeeded; otherwise its newest failed attempt is the one to redeliver.
	newest := cur
	settled := map[string]bool{}
	failed := map[string]int64{}
	var order []string
	opts := &github.ListCursorOptions{PerPage: 100}
	done := false
	for page := 0; page < r.cfg.MaxPages && !done; page++ {
		list, resp, err := r.cfg.GitHub.ListHookDeliveries(ctx, opts)
		if err != nil {
			return 0, fmt.Errorf("list hook deliveries: %w", err)
		}
		for _, d := range list {
			if d.GetID() <= cur {
				done = true
				break
			}
			newest = max(newest, d.GetID())
			guid := d.GetGUID()
			if code := d.GetStatusCode(); code >= 200 && code < 400 {
				settled[guid] = true
				continue
			}
			if _, seen := failed[guid]; !seen {
				failed[guid] = d.GetID()
				order = append(order, guid)
			}
		}
		if resp == nil || resp.Cursor == "" {
			break
		}
		opts.Cursor = resp.Cursor
	}
	var want []string
	for _, g := range order {
		if !settled[g] {
			want = append(want, g)
		}
	}
	stored := map[string]bool{}
	for i := 0; i < len(want); i += 500 {
		ids, err := r.cfg.DB.WebhookEvent.Query().Where(webhookevent.DeliveryIDIn(want[i:min(len(want), i+500)]...)).
			Select(webhookevent.FieldDeliveryID).Strings(ctx)
		if err != nil {
			return 0, fmt.Errorf("stored deliveries: %w", err)
		}
		for _, id := range ids {
			stored[id] = true
		}
	}
	asked := 0
	allAsked := true
	for _, g := range want {
		if stored[g] {
			continue
		}
		if asked > 0 {
			select {
			case <-ctx.Done():
				return asked, ctx.Err()
			case <-time.After(r.cfg.Pace):
			}
		}
		// GitHub answers 202, which go-github returns as *AcceptedError.
		var accepted *github.AcceptedError
		if _, _, err := r.cfg.GitHub.RedeliverHookDelivery(ctx, failed[g]); err != nil && !errors.As(err, &accepted) {
			r.cfg.Log.Warn("webhook recovery: redeliver", "delivery_id", g, "err", redact.Error(err))
			allAsked = false
			continue
		}
		r.cfg.Log.Info("webhook recovery: asked GitHub to redeliver", "delivery_id", g)
		asked++
	}
	// The cursor moves only past what was handled: a redelivery that could
	// not be asked for is listed again next time.
	if allAsked && newest > cur {
		if err := r.cfg.DB.HookCursor.Update().Where(hookcursor.AppID(r.cfg.AppID)).SetLastDeliveryID(newest).Exec(ctx); err != nil {
			return asked, fmt.Errorf("store delivery cursor: %w", err)
		}
	}
	return asked, nil
}

// claim takes this interval's pass (compare-and-set on checked_at) and
// returns the stored cursor.
func (r *Recoverer) claim(ctx context.Context, now time.Time, force bool) (int64, bool, error) {
	err := r.cfg.DB.HookCursor.Create().SetAppID(r.cfg.AppID).OnConflictColumns(hookcursor.FieldAppID).Ignore().Exec(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("delivery cursor: %w", err)
	}
	q := r.cfg.DB.HookCursor.Update().Where(hookcursor.AppID(r.cfg.AppID))
	if !force {
		q = q.Where(hookcursor.Or(hookcursor.CheckedAtIsNil(), hookcursor.CheckedAtLT(now.Add(-r.cfg.Interval*9/10))))
	}
	n, err := q.SetCheckedAt(now).Save(ctx)
	if err != nil || n == 0 {
		return 0, false, err
	}
	c, err := r.cfg.DB.HookCursor.Query().Where(hookcursor.AppID(r.cfg.AppID)).Only(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("delivery cursor: %w", err)
	}
	return c.LastDeliveryID, true, nil
}
