package security

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestSubscriptionOutlivesNoRevocation: a runUpdated subscription checks its
// token again at least every minute; once the token is revoked it delivers
// nothing more and the socket is closed. The viewer used to be resolved once
// per WebSocket, so a revoked token kept receiving runs for hours.
func TestSubscriptionOutlivesNoRevocation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tok, _ := w.Login("bob").Token("read")
		ws, _, err := websocket.Dial(ctx, strings.Replace(w.URL, "http", "ws", 1)+"/graphql", &websocket.DialOptions{
			Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: http.Header{"Authorization": {"Bearer " + tok.Bearer}}})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		var m struct {
			Type    string
			Payload struct {
				Data struct{ RunUpdated struct{ PrTitle string } }
			}
		}
		if err := wsjson.Write(ctx, ws, map[string]any{"type": "connection_init"}); err != nil {
			t.Fatal(err)
		}
		if err := wsjson.Read(ctx, ws, &m); err != nil || m.Type != "connection_ack" {
			t.Fatalf("init: %v %+v", err, m)
		}
		if err := wsjson.Write(ctx, ws, map[string]any{"id": "1", "type": "subscribe",
			"payload": map[string]any{"query": "subscription { runUpdated { id prTitle } }"}}); err != nil {
			t.Fatal(err)
		}
		next := func(until time.Duration) (string, error) {
			rctx, rcancel := context.WithTimeout(ctx, until)
			defer rcancel()
			for {
				m.Type = ""
				if err := wsjson.Read(rctx, ws, &m); err != nil {
					return "", err
				}
				if m.Type == "next" {
					return m.Payload.Data.RunUpdated.PrTitle, nil
				}
			}
		}
		// bob reads acme/secret: its run's change reaches him.
		time.Sleep(200 * time.Millisecond)
		db.Run.UpdateOne(w.runSec).SetPrTitle("SECRET-1").ExecX(ctx)
		for {
			got, err := next(10 * time.Second)
			if err != nil {
				t.Fatalf("no update before revocation: %v", err)
			}
			if got == "SECRET-1" {
				break
			}
		}

		bobID := db.User.Query().Where(user.Login("bob")).OnlyIDX(ctx)
		db.APIToken.Update().Where(apitoken.HasOwnerWith(user.ID(bobID))).SetRevokedAt(time.Now()).ExecX(ctx)
		w.Clock.Advance(61 * time.Second)
		time.Sleep(500 * time.Millisecond)
		db.Run.UpdateOne(w.runSec).SetPrTitle("SECRET-2").ExecX(ctx)
		got, err := next(10 * time.Second)
		switch {
		case err == nil:
			t.Fatalf("a revoked token's subscription still delivered %q a minute later", got)
		case errors.Is(err, context.DeadlineExceeded):
			t.Fatalf("the revoked token's socket stayed open: %v", err)
		}
	})
}
