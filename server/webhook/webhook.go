// Package webhook is Chakshu's GitHub webhook intake (DESIGN §3): it checks the
// signature, stores the delivery under its unique delivery ID and answers 202.
// Nothing else happens in the request; the worker handles stored events
// (worker/events). A 202 means the event is committed to the database.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"

	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/textcut"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server"
)

// Route is where GitHub posts webhooks.
const Route = "POST /webhooks/github"

// MaxBody is the largest payload GitHub sends (25 MB).
const MaxBody = 25 << 20

// Defaults of the in-flight cap. At the intake's budget (2,000 deliveries a
// second at a few milliseconds each) about ten bodies are in flight; 64
// leaves room for bursts while bounding what slow or hostile senders can
// make the process hold before any signature is checked.
const (
	DefaultMaxInFlight  = 64
	DefaultInFlightWait = 500 * time.Millisecond
)

// firstRead is the most a body's buffer starts with: the buffer grows as
// bytes arrive, so a Content-Length that lies costs nothing up front.
const firstRead = 64 << 10

// Config builds a Handler.
type Config struct {
	DB *store.DB
	// Secrets are the accepted webhook secrets (rotation: a delivery signed
	// with any of them is accepted). At least one is required.
	Secrets []string
	Log     *slog.Logger
	// Bus is told (TopicEvents) when an event was stored; nil skips the wake-up.
	Bus wakeup.Bus
	// Metrics registers the intake counters; nil leaves them unregistered.
	Metrics Registerer
	// MaxBody overrides the body cap (tests); 0 means MaxBody.
	MaxBody int64
	// MaxInFlight caps the request bodies being read or handled at once;
	// past it a request waits up to InFlightWait for a slot, then is
	// answered 503 with Retry-After, unread. 0 means DefaultMaxInFlight.
	MaxInFlight int
	// InFlightWait is how long a request waits for a slot; 0 means
	// DefaultInFlightWait.
	InFlightWait time.Duration
	// Batch groups concurrent stores into one commit (group commit); the zero
	// value turns it on, with the defaults for the database.
	Batch intake.IntakeConfig
	// AnswerWithin bounds storing one delivery; 0 means AnswerWithin. GitHub
	// counts an answer slower than 10 s as failed and never retries it by
	// itself, so a stalled database answers 503 well before that and the
	// worker's webhook recovery asks GitHub to redeliver.
	AnswerWithin time.Duration
	// BodyWithin bounds reading one delivery's body, counted from its
	// arrival; 0 means BodyWithin. A body slot is taken before the signature
	// can be checked, so a slow sender would otherwise hold it for the
	// server's whole ReadTimeout.
	BodyWithin time.Duration
}

// BodyWithin is the default bound on reading a delivery's body: GitHub
// itself gives up on a delivery after 10 s (docs "Handling failed webhook
// deliveries": a response within 10 seconds), so a body slower than that
// is never a delivery that can still succeed.
const BodyWithin = 10 * time.Second

// AnswerWithin is the default bound on storing a delivery: well under
// GitHub's 10 s (github.com; 30 s on Enterprise Server).
const AnswerWithin = 7 * time.Second

// Handler is the intake http.Handler.
type Handler struct {
	cfg     Config
	slots   chan struct{} // one per body in flight
	secrets [][]byte
	metrics *metrics
	intake  *intake.Intake
	wake    *waker
}

var _ http.Handler = (*Handler)(nil)

// New validates cfg and returns the handler. Close it to stop its batcher.
func New(cfg Config) (*Handler, error) {
	if cfg.DB == nil || cfg.Log == nil {
		return nil, errors.New("webhook: DB and Log are required")
	}
	h := &Handler{cfg: cfg}
	for _, s := range cfg.Secrets {
		if s = strings.TrimSpace(s); s != "" {
			h.secrets = append(h.secrets, []byte(s))
		}
	}
	if len(h.secrets) == 0 {
		return nil, errors.New("webhook: at least one webhook secret is required (CHAKSHU_WEBHOOK_SECRET)")
	}
	if h.cfg.MaxBody <= 0 {
		h.cfg.MaxBody = MaxBody
	}
	if h.cfg.MaxInFlight <= 0 {
		h.cfg.MaxInFlight = DefaultMaxInFlight
	}
	if h.cfg.InFlightWait <= 0 {
		h.cfg.InFlightWait = DefaultInFlightWait
	}
	h.slots = make(chan struct{}, h.cfg.MaxInFlight)
	if h.cfg.AnswerWithin <= 0 {
		h.cfg.AnswerWithin = AnswerWithin
	}
	if h.cfg.BodyWithin <= 0 {
		h.cfg.BodyWithin = BodyWithin
	}
	h.metrics = newMetrics(cfg.Metrics)
	h.wake = newWaker(cfg.Bus)
	h.intake = intake.NewIntake(cfg.DB, cfg.Batch)
	return h, nil
}

// Close stops the intake's writers and the waker after the work in flight.
func (h *Handler) Close() {
	h.intake.Close()
	h.wake.close()
}

// Event is one delivery as stored.
type Event = intake.Delivery

// BatchConfig shapes group commit (intake.IntakeConfig).
type BatchConfig = intake.IntakeConfig

// ServeHTTP implements the intake.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The body has its own short deadline (issue 43 item 8); where the
	// connection cannot take one (HTTP/2 streams behind some proxies, tests'
	// recorders) the server's ReadTimeout still applies.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.cfg.BodyWithin))
	if r.ContentLength > h.cfg.MaxBody {
		h.metrics.rejected.WithLabelValues("too_large").Inc()
		server.WriteError(w, http.StatusRequestEntityTooLarge, "too_large", "The payload is over the 25 MB limit.")
		return
	}
	if !h.acquire(r.Context()) {
		h.metrics.rejected.WithLabelValues("busy").Inc()
		w.Header().Set("Retry-After", "1")
		server.WriteError(w, http.StatusServiceUnavailable, "unavailable", "Too many deliveries are being received; please redeliver.")
		return
	}
	defer func() { <-h.slots }()
	body, err := readBody(w, r, h.cfg.MaxBody)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.metrics.rejected.WithLabelValues("too_large").Inc()
			server.WriteError(w, http.StatusRequestEntityTooLarge, "too_large", "The payload is over the 25 MB limit.")
			return
		}
		h.metrics.rejected.WithLabelValues("read").Inc()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			server.WriteError(w, http.StatusRequestTimeout, "timeout", "The request body was not received in time.")
			return
		}
		server.WriteError(w, http.StatusBadRequest, "invalid", "The request body could not be read.")
		return
	}
	// Read in full: the deadline is lifted again, or the server's background
	// read would cancel the request while the delivery is being stored.
	_ = rc.SetReadDeadline(time.Time{})
	release := true // the buffer goes back to the pool unless the batcher may still hold it
	defer func() {
		if release {
			putBody(body)
		}
	}()
	if !h.verify(r.Header.Get("X-Hub-Signature-256"), body) {
		h.metrics.rejected.WithLabelValues("signature").Inc()
		h.cfg.Log.Warn("webhook signature mismatch", "delivery_id", safeHeader(r.Header.Get("X-GitHub-Delivery")))
		server.WriteError(w, http.StatusUnauthorized, "unauthorized", "The signature does not match.")
		return
	}
	delivery, event := safeHeader(r.Header.Get("X-GitHub-Delivery")), safeHeader(r.Header.Get("X-GitHub-Event"))
	if delivery == "" || event == "" {
		h.metrics.rejected.WithLabelValues("headers").Inc()
		server.WriteError(w, http.StatusBadRequest, "invalid", "X-GitHub-Delivery and X-GitHub-Event are required.")
		return
	}
	e := &Event{DeliveryID: delivery, Event: event, Payload: body}
	describe(e)
	sctx, cancel := context.WithTimeout(r.Context(), h.cfg.AnswerWithin)
	stored, err := h.intake.Store(sctx, e)
	cancel()
	if err != nil {
		release = false // the batcher may still hold e: the buffer is left to the GC
		h.metrics.rejected.WithLabelValues("store").Inc()
		h.cfg.Log.Error("webhook store", "delivery_id", delivery, "event", event, "err", redact.Error(err))
		server.WriteError(w, http.StatusServiceUnavailable, "unavailable", "The event could not be stored; Chakshu asks GitHub to redeliver it.")
		return
	}
	if !stored {
		h.metrics.duplicates.WithLabelValues(event).Inc()
	} else {
		h.metrics.received.WithLabelValues(event).Inc()
		if e.Failed {
			h.cfg.Log.Warn("webhook payload stored as failed", "delivery_id", delivery, "event", event, "reason", e.Reason)
		} else {
			h.wake.poke()
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

// acquire takes a slot for one body in flight, waiting up to InFlightWait.
func (h *Handler) acquire(ctx context.Context) bool {
	select {
	case h.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(h.cfg.InFlightWait)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// bodies recycles request buffers: a delivery is ~10–25 KB, and allocating one
// per request at thousands a second is most of the intake's garbage (GC work
// and pauses land in the latency tail). Buffers over poolMax are not kept.
var bodies sync.Pool

const poolMax = 1 << 20

// readBody reads at most max bytes into a pooled buffer; release it with
// putBody once nothing refers to it. Nothing is allocated from the
// Content-Length the sender claims (the signature is not checked yet): the
// buffer starts at most firstRead bytes and grows as bytes arrive, up to max.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	n := r.ContentLength
	if n > max {
		return nil, &http.MaxBytesError{Limit: max}
	}
	buf := getBody(min(n, firstRead))
	body := http.MaxBytesReader(w, r.Body, max)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			putBody(buf)
			return nil, err
		}
	}
}

// getBody returns an empty buffer with room for n bytes (n < 0: unknown).
func getBody(n int64) []byte {
	if p, _ := bodies.Get().(*[]byte); p != nil {
		if int64(cap(*p)) >= n {
			return (*p)[:0]
		}
		bodies.Put(p)
	}
	return make([]byte, 0, max(n, 16<<10))
}

// putBody returns b to the pool; the caller must not use it afterwards.
func putBody(b []byte) {
	if cap(b) <= poolMax {
		bodies.Put(&b)
	}
}

// verify checks "sha256=<hex>" against every secret in constant time.
func (h *Handler) verify(header string, body []byte) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	match := false
	for _, s := range h.secrets {
		m := hmac.New(sha256.New, s)
		m.Write(body)
		if hmac.Equal(m.Sum(nil), got) {
			match = true // keep going: the time taken does not say which secret matched
		}
	}
	return match
}

// payloadFacts are the fields of a payload the intake stores beside it.
type payloadFacts struct {
	Action         string
	InstallationID int64
	Repository     string
}

// errNotObject is a payload that is JSON but not an object.
var errNotObject = errors.New("the payload is not a JSON object")

// facts decodes action, installation.id and repository.full_name from
// payload, which must be a JSON object; decoding checks the whole payload
// is valid JSON and skips the rest.
func facts(payload []byte) (payloadFacts, error) {
	var p struct {
		Action       string `json:"action"`
		Installation *struct {
			ID int64 `json:"id"`
		} `json:"installation"`
		Repository *struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return payloadFacts{}, err
	}
	if t := bytes.TrimLeft(payload, " \t\r\n"); len(t) == 0 || t[0] != '{' { // null decodes into the struct too
		return payloadFacts{}, errNotObject
	}
	f := payloadFacts{Action: p.Action}
	if p.Installation != nil {
		f.InstallationID = p.Installation.ID
	}
	if p.Repository != nil {
		f.Repository = p.Repository.FullName
	}
	return f, nil
}

// describe fills the fields the portal filters on, or marks the event failed.
func describe(e *Event) {
	f, err := facts(e.Payload)
	if err != nil {
		e.Failed = true
		e.Reason = fmt.Sprintf("The payload is not valid JSON (%s); it cannot be handled.", jsonProblem(err))
		return
	}
	// PostgreSQL text cannot hold NUL ("\u0000" in the JSON): dropped, or
	// the insert fails and GitHub redelivers the event forever.
	e.Action = textcut.Bytes(strings.ReplaceAll(f.Action, "\x00", ""), 100)
	e.InstallationID = f.InstallationID
	e.Repository = textcut.Bytes(strings.ReplaceAll(f.Repository, "\x00", ""), 200)
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	default:
		return textcut.Bytes(err.Error(), 200)
	}
}

// safeHeader keeps a header value short and printable.
func safeHeader(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 100 {
		return ""
	}
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return ""
		}
	}
	return s
}
