package security

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Issue 43 item 4: the viewer and their access were resolved once per
// WebSocket, so a revoked token, a signed-out session or a user removed
// from a repository kept receiving its runUpdated for hours. A live
// subscription now checks its token or session again, with repository
// access read from GitHub, at most a minute (LiveRecheck) before each
// delivery. The test clock stands in for the minute.

// userReposCall is the simulator's key for GET /user/repos, the call that
// reads a user's repository access.
const userReposCall = "GET /user/repos"

// liveSub is one runUpdated subscription over a real WebSocket.
type liveSub struct {
	t   *testing.T
	ctx context.Context
	ws  *websocket.Conn
}

// subscribe dials /graphql with h (a session cookie or a bearer token) and
// subscribes to runUpdated.
func subscribe(t *testing.T, ctx context.Context, w *world, h http.Header) *liveSub {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, strings.Replace(w.URL, "http", "ws", 1)+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	var m struct{ Type string }
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
	return &liveSub{t: t, ctx: ctx, ws: ws}
}

// next is the title of the next run delivered within until, or the read's error.
func (s *liveSub) next(until time.Duration) (string, error) {
	rctx, cancel := context.WithTimeout(s.ctx, until)
	defer cancel()
	for {
		var m struct {
			Type    string
			Payload struct {
				Data struct{ RunUpdated struct{ PrTitle string } }
			}
		}
		if err := wsjson.Read(rctx, s.ws, &m); err != nil {
			return "", err
		}
		if m.Type == "next" {
			return m.Payload.Data.RunUpdated.PrTitle, nil
		}
	}
}

// awaitTitle retitles r until its change is delivered (the subscription may
// not be listening yet when the first change is written), and returns the
// other titles delivered meanwhile.
func (s *liveSub) awaitTitle(db *store.DB, r *ent.Run, title string) []string {
	s.t.Helper()
	var others []string
	for try := 0; try < 20; try++ {
		db.Run.UpdateOne(r).SetPrTitle(title).ExecX(s.ctx)
		for {
			got, err := s.next(time.Second)
			if err != nil {
				break
			}
			if got == title {
				return others
			}
			others = append(others, got)
		}
	}
	s.t.Fatalf("%q never delivered", title)
	return nil
}

// closed fails unless the socket was closed by the server as unauthorised,
// with nothing delivered first.
func (s *liveSub) closed(what string) {
	s.t.Helper()
	got, err := s.next(10 * time.Second)
	switch {
	case err == nil:
		s.t.Fatalf("%s: the subscription still delivered %q", what, got)
	case errors.Is(err, context.DeadlineExceeded):
		s.t.Fatalf("%s: the socket stayed open", what)
	}
	if c := websocket.CloseStatus(err); c != 4403 {
		s.t.Fatalf("%s: closed with %v (status %d), want 4403 with a reason", what, err, c)
	}
	var ce websocket.CloseError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "sign in again") {
		s.t.Fatalf("%s: close reason %q", what, ce.Reason)
	}
}

// TestSubscriptionOutlivesNoRevocation: once bob's API token is revoked, the
// next check (within a minute) closes his socket before anything more is
// delivered.
func TestSubscriptionOutlivesNoRevocation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		tok, _ := w.Login("bob").Token("read")
		s := subscribe(t, ctx, w, tok.AuthHeader())
		s.awaitTitle(db, w.runSec, "SECRET-1") // bob reads acme/secret

		bobID := db.User.Query().Where(user.Login("bob")).OnlyIDX(ctx)
		db.APIToken.Update().Where(apitoken.HasOwnerWith(user.ID(bobID))).SetRevokedAt(w.Clock.Now()).ExecX(ctx)
		w.Clock.Advance(61 * time.Second)
		db.Run.UpdateOne(w.runSec).SetPrTitle("SECRET-2").ExecX(ctx)
		s.closed("revoked API token")
	})
}

// TestSubscriptionFollowsRepositoryAccess: bob reads acme/api and
// acme/secret; when he is removed from acme/secret on GitHub, the next check
// (within a minute, one GET /user/repos however often the subscription
// polls) stops its runs while acme/api's still arrive, for a session and for
// an API token alike. Before the minute is up nothing is asked of GitHub.
func TestSubscriptionFollowsRepositoryAccess(t *testing.T) {
	for _, how := range []string{"session", "token"} {
		t.Run(how, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				w := newWorld(t, db)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				w.Sim.SetPermission("acme/api", "bob", "read")
				bob := w.Login("bob") // signs in again: reads both
				if how == "token" {
					bob, _ = bob.Token("read")
				}
				s := subscribe(t, ctx, w, bob.AuthHeader())
				s.awaitTitle(db, w.runSec, "SECRET-1")
				s.awaitTitle(db, w.runAPI, "API-1")

				w.Sim.SetPermission("acme/secret", "bob", "none")
				before := w.Sim.CallCount(userReposCall)
				// Within the minute the socket trusts its last check (no GitHub call).
				w.Clock.Advance(59 * time.Second)
				s.awaitTitle(db, w.runAPI, "API-2")
				if n := w.Sim.CallCount(userReposCall) - before; n != 0 {
					t.Fatalf("%d access refreshes within the minute, want 0", n)
				}
				w.Clock.Advance(2 * time.Second)
				db.Run.UpdateOne(w.runSec).SetPrTitle("SECRET-2").ExecX(ctx)
				// SECRET-2 is older than API-3: had it been delivered, it came first.
				if others := s.awaitTitle(db, w.runAPI, "API-3"); slices.Contains(others, "SECRET-2") {
					t.Fatalf("a repository bob lost still delivered its run a minute later (%q)", others)
				}
				// The subscription polled many times since the minute passed: one refresh.
				if n := w.Sim.CallCount(userReposCall) - before; n != 1 {
					t.Fatalf("%d access refreshes after the minute, want 1", n)
				}
			})
		})
	}
}

// TestSubscriptionEndsWithItsSession: a session's socket closes at the next
// check once the user signs out (anywhere: the cookie is not stored, so a
// sign-out ends every session of the user), once the session has expired,
// and once GitHub has revoked the user's token (GET /user/repos answers 401).
func TestSubscriptionEndsWithItsSession(t *testing.T) {
	cases := []struct {
		name string
		end  func(w *world, bob interface{ Logout() })
	}{
		{"signed out", func(w *world, bob interface{ Logout() }) { bob.Logout(); w.Clock.Advance(61 * time.Second) }},
		{"expired", func(w *world, _ interface{ Logout() }) { w.Clock.Advance(12*time.Hour + time.Second) }},
		{"github token revoked", func(w *world, _ interface{ Logout() }) { w.Sim.ExpireTokens(); w.Clock.Advance(61 * time.Second) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				w := newWorld(t, db)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				bob := w.Login("bob")
				s := subscribe(t, ctx, w, bob.AuthHeader())
				s.awaitTitle(db, w.runSec, "SECRET-1")
				tc.end(w, bob)
				db.Run.UpdateOne(w.runSec).SetPrTitle("SECRET-2").ExecX(ctx)
				s.closed(tc.name)
			})
		})
	}
}
