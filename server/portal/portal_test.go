package portal

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

const indexHTML = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>`

var bigJS = "export const x = '" + strings.Repeat("chakshu ", 400) + "';\n"

func build() fstest.MapFS {
	return fstest.MapFS{
		"index.html":             {Data: []byte(indexHTML)},
		"assets/index-abc123.js": {Data: []byte(bigJS)},
		"assets/index-def.css":   {Data: []byte("body{margin:0}")},
		"favicon.svg":            {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)},
		".keep":                  {Data: nil},
	}
}

func newHandler(t *testing.T, fsys fstest.MapFS) *Handler {
	t.Helper()
	h, err := New(Config{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func do(h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestServe(t *testing.T) {
	h := newHandler(t, build())
	tests := []struct {
		name, method, target  string
		status                int
		bodyHas, ctype, cache string
	}{
		{name: "root is index", method: "GET", target: "/", status: 200, bodyHas: `<div id="root">`, ctype: "text/html", cache: "no-cache"},
		{name: "index.html itself", method: "GET", target: "/index.html", status: 200, bodyHas: `<div id="root">`, cache: "no-cache"},
		{name: "deep link falls back to index", method: "GET", target: "/runs/42?status=failed", status: 200, bodyHas: `<div id="root">`, ctype: "text/html", cache: "no-cache"},
		{name: "nested app route", method: "GET", target: "/reviewers/security/config", status: 200, bodyHas: `<div id="root">`},
		{name: "hashed asset is immutable", method: "GET", target: "/assets/index-abc123.js", status: 200, bodyHas: "chakshu chakshu", ctype: "text/javascript", cache: "public, max-age=31536000, immutable"},
		{name: "css asset", method: "GET", target: "/assets/index-def.css", status: 200, bodyHas: "margin:0", ctype: "text/css"},
		{name: "unhashed public file", method: "GET", target: "/favicon.svg", status: 200, ctype: "image/svg+xml", cache: "public, max-age=3600"},
		{name: "missing asset is 404 not index", method: "GET", target: "/assets/index-old.js", status: 404, cache: "no-cache"},
		{name: "missing file with extension", method: "GET", target: "/robots.txt", status: 404},
		{name: "dotfile is not served", method: "GET", target: "/.keep", status: 404},
		{name: "path traversal stays inside", method: "GET", target: "/assets/../index.html", status: 200, bodyHas: `<div id="root">`},
		{name: "api prefix is a JSON 404", method: "GET", target: "/api/nope", status: 404, bodyHas: `"code":"not_found"`, ctype: "application/json"},
		{name: "graphql prefix is a JSON 404", method: "GET", target: "/graphql/x", status: 404, ctype: "application/json"},
		{name: "auth prefix is a JSON 404", method: "GET", target: "/auth/unknown", status: 404},
		{name: "head", method: "HEAD", target: "/runs", status: 200},
		{name: "post refused", method: "POST", target: "/", status: 405, bodyHas: "method_not_allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(h, tc.method, tc.target, nil)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d; body %q", rec.Code, tc.status, rec.Body.String())
			}
			if tc.bodyHas != "" && !strings.Contains(rec.Body.String(), tc.bodyHas) {
				t.Errorf("body %q does not contain %q", rec.Body.String(), tc.bodyHas)
			}
			if tc.ctype != "" && !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.ctype) {
				t.Errorf("Content-Type = %q, want %q…", rec.Header().Get("Content-Type"), tc.ctype)
			}
			if tc.cache != "" && rec.Header().Get("Cache-Control") != tc.cache {
				t.Errorf("Cache-Control = %q, want %q", rec.Header().Get("Cache-Control"), tc.cache)
			}
			csp := rec.Header().Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP allows inline code: %q", csp)
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("missing nosniff")
			}
		})
	}
}

func TestGzipAndETag(t *testing.T) {
	h := newHandler(t, build())
	rec := do(h, "GET", "/assets/index-abc123.js", map[string]string{"Accept-Encoding": "br, gzip"})
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding = %q, want gzip", rec.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(plain) != bigJS {
		t.Error("gzip body does not decompress to the file")
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}

	rec = do(h, "GET", "/assets/index-abc123.js", map[string]string{"Accept-Encoding": "gzip;q=0"})
	if rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != bigJS {
		t.Error("gzip;q=0 still got gzip")
	}

	rec = do(h, "GET", "/assets/index-abc123.js", map[string]string{"If-None-Match": etag})
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", rec.Code)
	}
	// Small files are not worth compressing.
	rec = do(h, "GET", "/favicon.svg", map[string]string{"Accept-Encoding": "gzip"})
	if rec.Header().Get("Content-Encoding") != "" {
		t.Error("tiny file was gzipped")
	}
}

func TestNotBuilt(t *testing.T) {
	h := newHandler(t, fstest.MapFS{".keep": {Data: nil}})
	for _, target := range []string{"/", "/runs/7"} {
		rec := do(h, "GET", target, nil)
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: status %d, want 503", target, rec.Code)
		}
		if !strings.Contains(rec.Body.String(), "make build") {
			t.Errorf("%s: page does not say to run make build: %q", target, rec.Body.String())
		}
	}
}

func TestEmbeddedBuildLoads(t *testing.T) {
	// The real embedded build: on a clean checkout only .keep, which must
	// still give a working handler (the not-built page).
	h, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec := do(h, "GET", "/", nil)
	if rec.Code != http.StatusOK && rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", rec.Code)
	}
	if rec.Code == http.StatusOK && !bytes.Contains(rec.Body.Bytes(), []byte(`id="root"`)) {
		t.Error("index.html does not mount the app")
	}
}

func TestImgSources(t *testing.T) {
	h, err := New(Config{FS: build(), ImgSources: []string{"http://127.0.0.1:9000"}})
	if err != nil {
		t.Fatal(err)
	}
	csp := do(h, "GET", "/", nil).Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "img-src 'self' data: https: http://127.0.0.1:9000") {
		t.Errorf("CSP %q lacks the extra image source", csp)
	}
}
