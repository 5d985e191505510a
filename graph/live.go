package graph

import (
	"context"
	"net/http"
	"strings"

	"github.com/chakshu-dev/chakshu/server/auth"
)

// A WebSocket lives for hours on the viewer and access resolved when it
// opened; issue 43 item 4: a revoked token or an offboarded user kept
// receiving runUpdated. So each live subscription authenticates its
// upgrade request again every LiveRecheck (through auth.Middleware, as a
// new request would), reads with the access that gives, and closes the
// socket when the token or session is gone.

// liveAuth is a WebSocket's upgrade request, kept to authenticate it again.
type liveAuth struct {
	req    *http.Request // headers only
	cancel context.CancelFunc
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

// viewerNow authenticates la's request again: the viewer it is now, or nil
// when its token or session is no longer valid.
func (h *api) viewerNow(ctx context.Context, la *liveAuth) *auth.Viewer {
	var v *auth.Viewer
	h.cfg.Auth.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		v = auth.FromContext(r.Context())
	})).ServeHTTP(discard{h: http.Header{}}, la.req.Clone(ctx))
	return v
}

// liveContext is ctx reading as v, with access computed anew.
func liveContext(ctx context.Context, v *auth.Viewer) context.Context {
	return context.WithValue(auth.WithViewer(ctx, v), accessKey{}, &accessCell{})
}

// discard is a ResponseWriter whose answer nobody reads.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
