package graph

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/chakshu-dev/chakshu/server/auth"
)

// A WebSocket lives for hours on the viewer and access resolved when it
// opened; issue 43 item 4: a revoked token or an offboarded user kept
// receiving runUpdated. So a live subscription authenticates its upgrade
// request again at most LiveRecheck before each delivery
// (auth.Revalidate): the token or session must still be valid and the
// user's repository access is no older than LiveRecheck, refreshed from
// GitHub when older. Access lost to one repository stops that repository's
// runs and leaves the socket open (the viewer is still who they were, and
// the portal's other runs keep coming); a token or session that is gone
// closes the socket with closeUnauthorized.

// closeUnauthorized is the close code of a socket whose token or session is
// gone: graphql-transport-ws's 4403 Forbidden, which clients treat as "sign
// in again", not as a network error to retry through.
const closeUnauthorized = 4403

// closeReason is the close frame's reason then.
const closeReason = "session or API token no longer valid; sign in again"

// liveAuth is a WebSocket's upgrade request, kept to authenticate it again,
// and the viewer its last check found, shared by the socket's subscriptions.
type liveAuth struct {
	req    *http.Request // headers only
	cancel context.CancelFunc

	mu      sync.Mutex
	viewer  *auth.Viewer // nil until the first recheck
	checked time.Time
	ended   bool // the token or session is gone: WriteClose says so
}

type liveKey struct{}

func liveFrom(ctx context.Context) *liveAuth {
	la, _ := ctx.Value(liveKey{}).(*liveAuth)
	return la
}

// withLive keeps a WebSocket upgrade's request for liveAuth.
func (h *api) withLive(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			req := r.Clone(context.Background())
			req.Body = http.NoBody
			r = r.WithContext(context.WithValue(r.Context(), liveKey{}, &liveAuth{req: req}))
		}
		next.ServeHTTP(w, r)
	})
}

// liveViewer is the socket's viewer checked at most LiveRecheck ago, or nil
// (and the socket closing) when its token or session is gone. A failed look-up
// (the database is unwell) keeps the last viewer until the next check.
func (h *api) liveViewer(ctx context.Context, la *liveAuth) *auth.Viewer {
	la.mu.Lock()
	defer la.mu.Unlock()
	if la.ended {
		return nil
	}
	now := h.cfg.Now()
	if la.viewer != nil && now.Sub(la.checked) < h.cfg.LiveRecheck {
		return la.viewer
	}
	v, err := h.cfg.Auth.Revalidate(ctx, la.req, h.cfg.LiveRecheck)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("live subscription: recheck its viewer", "err", err)
		}
		return la.viewer
	}
	if v == nil {
		h.log.Info("live subscription closed: its token or session is no longer valid")
		la.ended = true
		if la.cancel != nil {
			la.cancel()
		}
		return nil
	}
	la.viewer, la.checked = v, now
	return v
}

// endedReason reports whether la's socket closes because its token or session is gone.
func (la *liveAuth) endedReason() bool {
	la.mu.Lock()
	defer la.mu.Unlock()
	return la.ended
}

// liveContext is ctx reading as v, with access computed anew.
func liveContext(ctx context.Context, v *auth.Viewer) context.Context {
	return context.WithValue(auth.WithViewer(ctx, v), accessKey{}, &accessCell{})
}

// liveSockets accepts WebSockets whose close frame says why when the
// token or session is gone (gqlgen's own close is 1000 "terminated").
type liveSockets struct {
	transport.WebsocketImplementation
}

func (l liveSockets) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := l.WebsocketImplementation.Accept(w, r, o)
	if err != nil {
		return c, err
	}
	if la := liveFrom(r.Context()); la != nil {
		return liveConn{WebsocketConn: c, la: la}, nil
	}
	return c, nil
}

type liveConn struct {
	transport.WebsocketConn
	la *liveAuth
}

func (c liveConn) WriteClose(code int, msg string) error {
	if c.la.endedReason() {
		code, msg = closeUnauthorized, closeReason
	}
	return c.WebsocketConn.WriteClose(code, msg)
}

// SetReadLimit keeps gqlgen's payload limit on the wrapped connection.
func (c liveConn) SetReadLimit(n int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(n)
	}
}

// SetReadDeadline keeps gqlgen's pong deadline on the wrapped connection.
func (c liveConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
