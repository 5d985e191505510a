// Package portal serves the portal's production build (the React app under
// frontend/) from the binary: hashed assets with long-lived caching,
// index.html revalidated on every load, client-side routes answered with
// index.html so deep links survive a reload, and a strict Content-Security-Policy.
package portal

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/frontend"
	"github.com/chakshu-dev/chakshu/server"
)

// Cache-Control values by kind of file.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
	cacheShort      = "public, max-age=3600"
)

// DefaultReserved are path prefixes that belong to the API side: a request
// for one that reached the portal matched no API route and gets a JSON 404
// instead of the app's index.html.
var DefaultReserved = []string{"/api/", "/auth/", "/graphql", "/webhooks/", "/healthz", "/readyz", "/metrics"}

// Config builds the portal handler. The zero value serves the embedded build.
type Config struct {
	// FS holds the build output (index.html, assets/…); nil means the build
	// embedded in the binary (frontend.Dist()).
	FS fs.FS
	// ImgSources are extra CSP img-src sources (the app shows GitHub avatars,
	// which are https: already allowed); e.g. "http://127.0.0.1:9000".
	ImgSources []string
	// Reserved overrides DefaultReserved.
	Reserved []string
}

// asset is one file of the build, read once at start-up.
type asset struct {
	body  []byte
	gz    []byte // gzip of body when worth it, else nil
	etag  string
	ctype string
	cache string
}

// Handler is the portal: mount it as the catch-all pattern "/" (no method:
// "GET /" would conflict with method-less API patterns such as "/graphql";
// other methods get a 405 here).
type Handler struct {
	assets   map[string]*asset
	index    *asset
	csp      string
	reserved []string
}

var _ http.Handler = (*Handler)(nil)

// New reads the build into memory (a few hundred KB) and returns the handler.
func New(cfg Config) (*Handler, error) {
	fsys := cfg.FS
	if fsys == nil {
		fsys = frontend.Dist()
	}
	h := &Handler{assets: map[string]*asset{}, csp: policy(cfg.ImgSources), reserved: cfg.Reserved}
	if h.reserved == nil {
		h.reserved = DefaultReserved
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(path.Base(p), ".") {
			return nil
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		h.assets[p] = newAsset(p, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read portal build: %w", err)
	}
	h.index = h.assets["index.html"]
	return h, nil
}

func newAsset(p string, body []byte) *asset {
	sum := sha256.Sum256(body)
	a := &asset{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	a.ctype = mime.TypeByExtension(path.Ext(p))
	if a.ctype == "" {
		a.ctype = http.DetectContentType(body)
	}
	switch {
	case p == "index.html" || p == explorerPage: // both name hashed assets
		a.cache = cacheRevalidate
	case strings.HasPrefix(p, "assets/"):
		// Vite names everything under assets/ by content hash.
		a.cache = cacheImmutable
	default:
		a.cache = cacheShort
	}
	if compressible(a.ctype) && len(body) > 1024 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(body) //nolint:errcheck // writes to a bytes.Buffer
		zw.Close()     //nolint:errcheck
		if buf.Len() < len(body) {
			a.gz = buf.Bytes()
		}
	}
	return a
}

func compressible(ctype string) bool {
	for _, p := range []string{"text/", "application/javascript", "text/javascript", "application/json", "image/svg+xml"} {
		if strings.HasPrefix(ctype, p) {
			return true
		}
	}
	return false
}

// policy is the Content-Security-Policy for every portal response: scripts,
// styles and API calls only from this origin; no inline script, no framing.
func policy(imgSources []string) string {
	img := append([]string{"'self'", "data:", "https:"}, imgSources...)
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src " + strings.Join(img, " "),
		"font-src 'self'",
		"connect-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// secure sets the headers every portal page carries: the CSP and no framing
// or sniffing.
func (h *Handler) secure(hdr http.Header) {
	hdr.Set("Content-Security-Policy", h.csp)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "same-origin")
}

// ServeHTTP serves a file of the build, or index.html for an app route.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	h.secure(hdr)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		server.WriteError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed")
		return
	}
	for _, p := range h.reserved {
		if strings.HasPrefix(r.URL.Path, p) {
			server.WriteError(w, http.StatusNotFound, "not_found", "not found")
			return
		}
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if a, ok := h.assets[name]; ok {
		h.serve(w, r, a)
		return
	}
	// A missing file (it has an extension, or sits under assets/) is a 404:
	// answering index.html for a stale script would fail with a MIME error.
	if strings.HasPrefix(name, "assets/") || path.Ext(name) != "" {
		hdr.Set("Cache-Control", cacheRevalidate)
		http.Error(w, "404 not found", http.StatusNotFound)
		return
	}
	if h.index == nil {
		notBuilt(w)
		return
	}
	h.serve(w, r, h.index)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, a *asset) {
	hdr := w.Header()
	hdr.Set("Cache-Control", a.cache)
	hdr.Set("Content-Type", a.ctype)
	hdr.Set("ETag", a.etag)
	hdr.Add("Vary", "Accept-Encoding")
	body := a.body
	if a.gz != nil && server.AcceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	// ServeContent answers If-None-Match (304) and Range requests.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Chakshu: portal not built</title></head>
<body><h1>Portal not built</h1>
<p>This chakshu binary was built without the portal. Run <code>make build</code>
(it builds the portal with Node, then the Go binaries) and start chakshu again.</p>
<p>The API is up: <a href="/graphql">/graphql</a>, <a href="/healthz">/healthz</a>.</p>
</body></html>
`

func notBuilt(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", cacheRevalidate)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprint(w, notBuiltPage)
}
