package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/spend"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// The cost cap is held on one ledger, the run's cost_usd (issue 43 item 1):
// before a request goes out its worst case is added to the run's cost in
// the same statement that checks the cap, and the answer's metered cost
// replaces the reservation once it is known. So requests in flight count
// against the cap, against the other requests of the run and, through the
// cost rollup's triggers (internal/store/rollup.go), against the
// installation's and repository's spend budgets, on every replica at once.
// A run shows a reservation as cost while its request is in flight; a
// process that dies mid-request leaves the worst case metered, never less.

// defaultMaxInFlight is how many model requests one run may have in flight
// at once by default (the agent asks one at a time; a few allow retries
// and a sub-agent alongside).
const defaultMaxInFlight = 4

// CodeInFlight answers a request past its run's in-flight limit (429,
// retryable: one of the others ends soon).
const CodeInFlight = "too_many_requests_in_flight"

// inFlight counts each run's requests in flight in this process.
type inFlight struct {
	mu  sync.Mutex
	n   map[int]int
	max int
}

// enter takes a place for run id, or says there is none.
func (f *inFlight) enter(id int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[id] >= f.max {
		return false
	}
	f.n[id]++
	return true
}

// leave gives run id's place back.
func (f *inFlight) leave(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[id]--; f.n[id] <= 0 {
		delete(f.n, id)
	}
}

// bytesPerToken is the request bytes counted as one input token in a
// request's worst case. Tokens run at about 3-4 characters of English or
// code; JSON framing only adds bytes, so this overestimates, and the
// answer's usage settles the difference.
const bytesPerToken = 3

// maxOutputAny is the largest output limit of any catalogue model (128K),
// for a model whose limit the catalogue does not state.
const maxOutputAny = 128_000

// worstCase is what a request of body can cost at most on entry: every byte
// of it written to the 1-hour cache (the dearest input price), plus
// max_tokens of output, at the tier that prompt would reach, where geo
// says inference runs.
func worstCase(entry *models.Entry, body []byte, geo string) float64 {
	var req struct {
		MaxTokens int64 `json:"max_tokens"`
	}
	_ = json.Unmarshal(body, &req)
	// The API refuses a request without max_tokens or above the model's
	// output limit; were one to pass, the model's limit (or, unknown, the
	// largest any model has) is the most it writes.
	out, limit := req.MaxTokens, cmp.Or(entry.MaxOutput, maxOutputAny)
	if out <= 0 || out > limit {
		out = limit
	}
	in := int64(len(body))/bytesPerToken + 1
	return entry.Cost(models.Usage{OutputTokens: out, CacheCreationInputTokens: in,
		CacheCreation: &models.CacheCreation{Ephemeral1h: in}, InferenceGeo: geo})
}

// reservation is one admitted request's hold on its run's cost.
type reservation struct {
	g      *Gateway
	runID  int
	max    float64 // the run's cap, 0 for none
	amount float64
	done   bool
}

// reserve adds amount to run id's cost if the run may send a request: under
// its cap (counting what is already reserved) with its repository's and
// installation's spend budgets not used up (spend.Reserve: the checks and
// the addition are one atomic step, so concurrent requests, of this run or
// another run of the installation, cannot all pass at the same spend), or,
// past either, for the first request flagged final. A refused request's
// answer names the spent budget, when one refused it.
func (g *Gateway) reserve(ctx context.Context, id int, maxCost float64, final bool, amount float64) (*reservation, *spend.Exceeded, error) {
	added, ex, err := spend.Reserve(ctx, g.cfg.DB, id, amount, g.cfg.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("reserve cost: %w", err)
	}
	n := 0
	if added {
		n = 1
	}
	if n == 0 && final {
		err = store.Retry(ctx, func() error {
			var err error
			n, err = g.cfg.DB.Run.Update().Where(run.ID(id), run.ModelFinalUsed(false)).
				SetModelFinalUsed(true).AddCostUsd(amount).Save(ctx)
			return err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("spend final request: %w", err)
		}
	}
	if n == 0 {
		return nil, ex, nil
	}
	return &reservation{g: g, runID: id, max: maxCost, amount: amount}, nil, nil
}

// release takes the reservation back: the request cost nothing (refused,
// never sent, or an error answer, which is not billed).
func (r *reservation) release(ctx context.Context, log *slog.Logger) {
	if r.done {
		return
	}
	r.done = true
	err := store.Retry(ctx, func() error {
		return r.g.cfg.DB.Run.Update().Where(run.ID(r.runID)).AddCostUsd(-r.amount).Exec(ctx)
	})
	if err != nil {
		log.Error("release model cost reservation", "err", redact.Error(err))
	}
}

// keep leaves the worst case as the request's cost: it went out and its
// usage is unknown (the runner gave up, the answer could not be read).
func (r *reservation) keep(log *slog.Logger, why string) {
	if r.done {
		return
	}
	r.done = true
	log.Warn("model request metered at its worst case", "why", why, "cost_usd", r.amount)
}

// settle replaces the reservation with u and its cost, in one atomic
// update, and notes on the timeline when this answer took the run to its cap.
func (r *reservation) settle(ctx context.Context, provider string, u models.Usage, cost float64) error {
	if r.done {
		return nil
	}
	r.done = true
	db := r.g.cfg.DB
	// One statement: an attempt PostgreSQL aborted added nothing, so the
	// retry adds the usage once.
	err := store.Retry(ctx, func() error {
		return db.Run.Update().Where(run.ID(r.runID)).SetProvider(provider).
			AddCostUsd(cost - r.amount).AddInputTokens(u.InputTokens).AddOutputTokens(u.OutputTokens).
			AddCacheReadTokens(u.CacheReadInputTokens).AddCacheWriteTokens(u.CacheCreationInputTokens).
			Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("add usage: %w", err)
	}
	if r.max <= 0 {
		return nil
	}
	now, err := db.Run.Query().Where(run.ID(r.runID)).Select(run.FieldCostUsd).Only(ctx)
	if err != nil {
		return fmt.Errorf("reload cost: %w", err)
	}
	if now.CostUsd >= r.max && now.CostUsd-cost < r.max {
		msg := fmt.Sprintf("Reached the cost cap of $%.2f; the agent was asked for its result.", r.max)
		if err := runstate.Note(ctx, db.Client, r.runID, msg, ""); err != nil {
			return fmt.Errorf("note cost cap: %w", err)
		}
	}
	return nil
}
