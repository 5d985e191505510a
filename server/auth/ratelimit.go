package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/internal/gcra"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/server"
)

// CodeRateLimited is the error code of a request refused by the per-token
// rate limit (HTTP 429 with Retry-After).
const CodeRateLimited = "RATE_LIMITED"

// tokenLimits is the per-API-token rate limit (CHAKSHU_API_TOKEN_RATE per
// minute, CHAKSHU_API_TOKEN_BURST at once): a token bucket per token, so a
// busy dashboard waits instead of starving the portal's sessions, which are
// not limited. The bucket is the token's row (rate_tat, GCRA as the content
// budget keeps it, internal/ghwrite's DBBudget), spent by compare-and-swap,
// so every web process sharing the database allows one rate between them,
// not one each.
type tokenLimits struct {
	db   *store.DB
	cell gcra.Cell
}

// newTokenLimits returns nil (no limit) when perMinute is 0.
func newTokenLimits(db *store.DB, perMinute, burst int) *tokenLimits {
	if perMinute <= 0 {
		return nil
	}
	return &tokenLimits{db: db, cell: gcra.Cell{Every: time.Minute / time.Duration(perMinute), Burst: max(burst, 1)}}
}

// spend spends one request of token t (as read to authenticate it) at now,
// or reports how long until one may go (nothing spent). An admitted request
// records the token's use in the same write. A database error lets the
// request through: the limit protects the service, the database is already
// answering for the token's lookup.
func (l *tokenLimits) spend(ctx context.Context, t *ent.APIToken, now time.Time) (time.Duration, error) {
	if l == nil {
		return 0, nil
	}
	tat := t.RateTat
	for range 20 {
		wait, next := l.cell.Due(tat, now.UnixNano(), 0)
		if wait > 0 {
			return wait, nil
		}
		n, err := l.db.APIToken.Update().Where(apitoken.ID(t.ID), apitoken.RateTat(tat)).
			SetRateTat(next).SetLastUsedAt(now).Save(ctx)
		if err != nil || n == 1 {
			return 0, err
		}
		// Another request (of this process or another) spent meanwhile: read it again.
		cur, err := l.db.APIToken.Query().Where(apitoken.ID(t.ID)).Select(apitoken.FieldRateTat).Only(ctx)
		if err != nil {
			return 0, err
		}
		tat = cur.RateTat
	}
	return 0, errors.New("too much contention")
}

// rateLimited answers 429 in both the HTTP and the GraphQL error shape, with
// Retry-After in whole seconds (rounded up, at least 1).
func rateLimited(w http.ResponseWriter, wait time.Duration) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	msg := fmt.Sprintf("API token rate limit exceeded; retry after %d s (CHAKSHU_API_TOKEN_RATE)", secs)
	server.WriteJSON(w, http.StatusTooManyRequests, map[string]any{
		"error":  server.ErrorDetail{Code: CodeRateLimited, Message: msg},
		"errors": []map[string]any{{"message": msg, "extensions": map[string]any{"code": CodeRateLimited, "retryAfterSeconds": secs}}},
	})
}
