package portal

import (
	"net/http"
	"strings"
)

// explorerPage is the GraphQL explorer's page in the build (frontend/explorer.html,
// a Vite entry of its own: its GraphiQL bundle is not part of the portal's
// initial JavaScript).
const explorerPage = "explorer.html"

// Explorer answers a browser's GET /graphql (Accept: text/html, no WebSocket
// upgrade) with the GraphiQL explorer page, under the portal's CSP; every other
// request (POST, graphql-ws upgrades, GET from scripts) goes to api.
func (h *Handler) Explorer(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !wantsHTML(r) || r.Header.Get("Upgrade") != "" {
			api.ServeHTTP(w, r)
			return
		}
		h.secure(w.Header())
		a := h.assets[explorerPage]
		if a == nil {
			notBuilt(w)
			return
		}
		h.serve(w, r, a)
	})
}

// wantsHTML reports whether the request's Accept lists text/html (as a
// browser's navigation does; GraphQL clients ask for JSON).
func wantsHTML(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(mt), "text/html") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
