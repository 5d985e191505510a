package security

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/webhook"
)

// TestWebhookSlowSendersLoseTheirSlots: senders that announce a body and
// then trickle or stall hold a body slot each before any signature can be
// checked. Past the body's own read deadline they lose it and real
// deliveries are served again; they used to keep it for the server's
// two-minute ReadTimeout, so a handful of connections shut the intake.
func TestWebhookSlowSendersLoseTheirSlots(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const slots = 2
		h := webhookHandler(t, db, func(c *webhook.Config) {
			c.MaxInFlight, c.InFlightWait, c.BodyWithin = slots, 20*time.Millisecond, 300*time.Millisecond
		})
		srv := httptest.NewUnstartedServer(h)
		srv.Config.ReadTimeout = 2 * time.Minute // as server.Server sets it
		srv.Start()
		t.Cleanup(srv.Close)
		for range slots {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			fmt.Fprintf(c, "POST /webhooks/github HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20000\r\n\r\n{")
		}
		quick := func() int {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhooks/github", strings.NewReader("{}"))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		// The stalled bodies hold every slot for now.
		deadline := time.Now().Add(5 * time.Second)
		for quick() != http.StatusServiceUnavailable {
			if time.Now().After(deadline) {
				t.Fatal("the stalled senders never held the slots")
			}
			time.Sleep(10 * time.Millisecond)
		}
		// Then their deadline passes and a delivery is read again (its bad
		// signature refused).
		deadline = time.Now().Add(5 * time.Second)
		for {
			code := quick()
			if code == http.StatusUnauthorized {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("5 s after two senders stalled their bodies the intake still answers %d", code)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
