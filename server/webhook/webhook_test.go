package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server/webhook"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
)

const (
	secret    = "s3cret-current"
	oldSecret = "s3cret-previous"
)

type intake struct {
	db   *store.DB
	srv  *httptest.Server
	bus  *wakeup.Local
	reg  *prometheus.Registry
	h    *webhook.Handler
	wake <-chan struct{}
}

func newIntake(t *testing.T, db *store.DB, mut func(*webhook.Config)) *intake {
	t.Helper()
	in := &intake{db: db, bus: wakeup.NewLocal(), reg: prometheus.NewRegistry()}
	wake, stop := in.bus.Subscribe(wakeup.TopicEvents)
	t.Cleanup(stop)
	in.wake = wake
	cfg := webhook.Config{DB: db, Secrets: []string{secret, oldSecret}, Bus: in.bus, Metrics: in.reg}
	if mut != nil {
		mut(&cfg)
	}
	served := webhooktest.StartIntake(t, cfg)
	in.h, in.srv = served.Handler, served.Server
	return in
}

func (in *intake) url() string { return in.srv.URL + "/webhooks/github" }

func (in *intake) do(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := in.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck
	resp.Body.Close()
	return resp.StatusCode
}

func (in *intake) count(t *testing.T) int {
	t.Helper()
	return in.db.WebhookEvent.Query().CountX(context.Background())
}

var body = []byte(`{"action":"created","installation":{"id":42},"repository":{"full_name":"acme/api"},"issue":{"number":1}}`)

func TestSignatureMatrix(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		in := newIntake(t, db, nil)
		cases := []struct {
			name   string
			header func(r *http.Request)
			want   int
			stored int
		}{
			{"missing", func(r *http.Request) { r.Header.Del("X-Hub-Signature-256") }, 401, 0},
			{"wrong secret", func(r *http.Request) { r.Header.Set("X-Hub-Signature-256", webhooktest.Sign("nope", body)) }, 401, 0},
			{"not hex", func(r *http.Request) { r.Header.Set("X-Hub-Signature-256", "sha256=zz") }, 401, 0},
			{"truncated", func(r *http.Request) {
				r.Header.Set("X-Hub-Signature-256", webhooktest.Sign(secret, body)[:20])
			}, 401, 0},
			{"sha1 only", func(r *http.Request) {
				r.Header.Del("X-Hub-Signature-256")
				r.Header.Set("X-Hub-Signature", "sha1="+strings.Repeat("a", 40))
			}, 401, 0},
			{"signature of another body", func(r *http.Request) {
				r.Header.Set("X-Hub-Signature-256", webhooktest.Sign(secret, []byte(`{}`)))
			}, 401, 0},
			{"right", func(r *http.Request) {}, 202, 1},
			{"rotated second secret", func(r *http.Request) {
				r.Header.Set("X-Hub-Signature-256", webhooktest.Sign(oldSecret, body))
			}, 202, 1},
		}
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := in.count(t)
				req := webhooktest.Request(t, in.url(), secret, "issue_comment", fmt.Sprintf("d-%d", i), body)
				tc.header(req)
				if got := in.do(t, req); got != tc.want {
					t.Fatalf("status %d, want %d", got, tc.want)
				}
				if n := in.count(t) - before; n != tc.stored {
					t.Fatalf("stored %d, want %d", n, tc.stored)
				}
			})
		}
		if got := metric(t, in.reg, "chakshu_webhook_rejected_total"); got != 6 {
			t.Fatalf("rejected counter %v, want 6", got)
		}
		if got := metric(t, in.reg, "chakshu_webhook_received_total"); got != 2 {
			t.Fatalf("received counter %v, want 2", got)
		}
	})
}

func TestStoresAndRedelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		in := newIntake(t, db, nil)
		if got := in.do(t, webhooktest.Request(t, in.url(), secret, "issue_comment", "dup-1", body)); got != 202 {
			t.Fatalf("first delivery: %d", got)
		}
		select {
		case <-in.wake:
		case <-time.After(2 * time.Second):
			t.Fatal("storing did not wake the event workers")
		}
		e := db.WebhookEvent.Query().OnlyX(ctx)
		if e.DeliveryID != "dup-1" || e.Event != "issue_comment" || e.Action != "created" || e.InstallationID != 42 ||
			e.Repository != "acme/api" || e.Status != webhookevent.StatusPending || !bytes.Equal(e.Payload, body) {
			t.Fatalf("stored %+v", e)
		}
		if got := in.do(t, webhooktest.Request(t, in.url(), secret, "issue_comment", "dup-1", body)); got != 202 {
			t.Fatalf("redelivery: %d", got)
		}
		if n := in.count(t); n != 1 {
			t.Fatalf("%d events after a redelivery", n)
		}
		if got := metric(t, in.reg, "chakshu_webhook_duplicates_total"); got != 1 {
			t.Fatalf("duplicates counter %v", got)
		}
		if err := testutil.GatherAndCompare(in.reg, strings.NewReader(`# HELP chakshu_webhook_duplicates_total Redeliveries of a delivery ID already stored (nothing stored), by event.
# TYPE chakshu_webhook_duplicates_total counter
chakshu_webhook_duplicates_total{event="issue_comment"} 1
`), "chakshu_webhook_duplicates_total"); err != nil {
			t.Fatalf("duplicates by event: %v", err)
		}
		// Missing delivery or event header.
		req := webhooktest.Request(t, in.url(), secret, "issue_comment", "", body)
		if got := in.do(t, req); got != 400 {
			t.Fatalf("no delivery id: %d", got)
		}
		req = webhooktest.Request(t, in.url(), secret, "", "d-x", body)
		if got := in.do(t, req); got != 400 {
			t.Fatalf("no event: %d", got)
		}
		if n := in.count(t); n != 1 {
			t.Fatalf("%d events after bad requests", n)
		}
	})
}

// metric sums the counter name over its labels.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func TestMalformedJSONStoredAsFailed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		in := newIntake(t, db, nil)
		bad := []byte(`{"action":"created",`)
		if got := in.do(t, webhooktest.Request(t, in.url(), secret, "issue_comment", "bad-1", bad)); got != 202 {
			t.Fatalf("status %d", got)
		}
		e := db.WebhookEvent.Query().OnlyX(ctx)
		if e.Status != webhookevent.StatusFailed || !strings.Contains(e.LastError, "not valid JSON") || e.HandledAt == nil {
			t.Fatalf("stored %s %q", e.Status, e.LastError)
		}
		select {
		case <-in.wake:
			t.Fatal("a failed event woke the workers")
		case <-time.After(100 * time.Millisecond):
		}
	})
}

func TestBodyCap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		in := newIntake(t, db, func(c *webhook.Config) { c.MaxBody = 1 << 10 })
		big := []byte(`{"x":"` + strings.Repeat("a", 2<<10) + `"}`)
		if got := in.do(t, webhooktest.Request(t, in.url(), secret, "push", "big-1", big)); got != 413 {
			t.Fatalf("status %d, want 413", got)
		}
		if n := in.count(t); n != 0 {
			t.Fatalf("stored %d", n)
		}
	})
}

// The default cap is GitHub's 25 MB: a large payload under it goes through.
func TestDefaultBodyCap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		in := newIntake(t, db, nil)
		big := []byte(`{"x":"` + strings.Repeat("a", 5<<20) + `"}`)
		if got := in.do(t, webhooktest.Request(t, in.url(), secret, "push", "big-2", big)); got != 202 {
			t.Fatalf("status %d for %d bytes", got, len(big))
		}
		over := []byte(`{"x":"` + strings.Repeat("a", webhook.MaxBody) + `"}`)
		if got := in.do(t, webhooktest.Request(t, in.url(), secret, "push", "big-3", over)); got != 413 {
			t.Fatalf("status %d for %d bytes", got, len(over))
		}
	})
}

// Concurrent deliveries, with redeliveries racing their originals, through the
// group-commit batcher and without it: every delivery ID stored exactly once.
func TestConcurrentDeliveries(t *testing.T) {
	for _, mode := range []string{"on", "off"} {
		t.Run("batch-"+mode, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				in := newIntake(t, db, func(c *webhook.Config) { c.Batch.Mode = mode })
				var wg sync.WaitGroup
				for i := range 40 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						id := fmt.Sprintf("c-%d", i%20)
						if got := in.do(t, webhooktest.Request(t, in.url(), secret, "ping", id, []byte(`{"zen":"x"}`))); got != 202 {
							t.Errorf("status %d", got)
						}
					}()
				}
				wg.Wait()
				if n := in.count(t); n != 20 {
					t.Fatalf("stored %d, want 20", n)
				}
			})
		})
	}
}

// Every example payload GitHub publishes for the events Chakshu handles is
// accepted and described (action, installation, repository).
func TestExamplesIntake(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		in := newIntake(t, db, nil)
		for _, ex := range webhooktest.Examples(t, webhooktest.Handled...) {
			id := "ex-" + ex.Name()
			if got := in.do(t, webhooktest.Request(t, in.url(), secret, ex.Event, id, ex.Payload)); got != 202 {
				t.Fatalf("%s: status %d", ex.Name(), got)
			}
			e := db.WebhookEvent.Query().Where(webhookevent.DeliveryID(id)).OnlyX(ctx)
			if e.Status != webhookevent.StatusPending || e.Action != ex.Action {
				t.Fatalf("%s: stored %s action %q", ex.Name(), e.Status, e.Action)
			}
		}
	})
}

// Group commit writes rows with its own SQL: they must read back through ent
// exactly as the rows ent writes (the path without group commit), pending and
// failed alike, with received_at the time of the store.
func TestGroupCommitStoresTheSameRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		on := newIntake(t, db, func(c *webhook.Config) { c.Batch.Mode = "on" })
		off := newIntake(t, db, func(c *webhook.Config) { c.Batch.Mode = "off" })
		before := time.Now().Add(-time.Second)
		for _, in := range []*intake{on, off} {
			for _, p := range []struct{ id, body string }{{"good", string(body)}, {"bad", `{"action":`}} {
				id := fmt.Sprintf("%s-%p", p.id, in)
				if got := in.do(t, webhooktest.Request(t, in.url(), secret, "issue_comment", id, []byte(p.body))); got != 202 {
					t.Fatalf("%s: status %d", id, got)
				}
			}
		}
		after := time.Now().Add(time.Second)
		get := func(in *intake, id string) *ent.WebhookEvent {
			e := db.WebhookEvent.Query().Where(webhookevent.DeliveryID(fmt.Sprintf("%s-%p", id, in))).OnlyX(ctx)
			if e.ReceivedAt.Before(before) || e.ReceivedAt.After(after) {
				t.Fatalf("%s: received_at %v", e.DeliveryID, e.ReceivedAt)
			}
			if e.HandledAt != nil && (e.HandledAt.Before(before) || e.HandledAt.After(after)) {
				t.Fatalf("%s: handled_at %v", e.DeliveryID, e.HandledAt)
			}
			return e
		}
		norm := func(e *ent.WebhookEvent) ent.WebhookEvent {
			c := *e
			c.ID, c.DeliveryID, c.ReceivedAt = 0, "", time.Time{}
			if c.HandledAt != nil {
				c.HandledAt = &time.Time{}
			}
			return c
		}
		for _, id := range []string{"good", "bad"} {
			a, b := get(on, id), get(off, id)
			if diff := cmp.Diff(norm(b), norm(a), cmpopts.IgnoreUnexported(ent.WebhookEvent{})); diff != "" {
				t.Fatalf("%s: group commit stored (-ent +group commit):\n%s", id, diff)
			}
		}
		if e := get(on, "bad"); e.Status != webhookevent.StatusFailed || e.HandledAt == nil || !strings.Contains(e.LastError, "not valid JSON") {
			t.Fatalf("bad: %s %v %q", e.Status, e.HandledAt, e.LastError)
		}
	})
}
