package metrics

import "github.com/prometheus/client_golang/prometheus"

// Outcomes of one attempt at handling a stored webhook event.
const (
	// OutcomeDone: handled; the event is done.
	OutcomeDone = "done"
	// OutcomeFailed: given up (attempts used, or a payload no retry can fix).
	OutcomeFailed = "failed"
	// OutcomeRetry: the handler failed; the event is tried again after a backoff.
	OutcomeRetry = "retry"
	// OutcomeGitHubWait: GitHub asked to wait (a rate limit); the event is
	// back with that due time, its attempts unspent.
	OutcomeGitHubWait = "github_wait"
)

// WebhookOutcomes counts what the worker's event loop made of each attempt
// at a stored webhook event, in this process (chakshu_webhook_events_processed_total).
// A nil *WebhookOutcomes counts nothing.
type WebhookOutcomes struct {
	processed *prometheus.CounterVec
}

// NewWebhookOutcomes registers the counter on reg.
func NewWebhookOutcomes(reg prometheus.Registerer) (*WebhookOutcomes, error) {
	w := &WebhookOutcomes{processed: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "chakshu_webhook_events_processed_total",
		Help: "Attempts at stored webhook events that ended, by event and outcome (done, failed, retry, github_wait), in this process.",
	}, []string{"event", "outcome"})}
	if err := reg.Register(w.processed); err != nil {
		return nil, err
	}
	return w, nil
}

// Processed counts one attempt at an event of type event that ended in outcome.
func (w *WebhookOutcomes) Processed(event, outcome string) {
	if w == nil {
		return
	}
	w.processed.WithLabelValues(event, outcome).Inc()
}
