package auth

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

func TestSafeReturn(t *testing.T) {
	cases := map[string]string{
		"":                     "/",
		"/runs?x=1":            "/runs?x=1",
		"//evil.example/":      "/",
		"/\\evil.example":      "/",
		"https://evil.example": "/",
		"runs":                 "/",
		"/a\r\nSet-Cookie:x":   "/",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := SafeReturn(in); got != want {
				t.Errorf("SafeReturn(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestWebURL(t *testing.T) {
	cases := map[string]string{
		"https://api.github.com/":     "https://github.com",
		"https://ghe.example/api/v3/": "https://ghe.example",
		"http://127.0.0.1:9/api/v3/":  "http://127.0.0.1:9",
		"http://127.0.0.1:9/":         "http://127.0.0.1:9",
		// GHE.com: the API on api.SUBDOMAIN.ghe.com, the web on SUBDOMAIN.ghe.com.
		"https://api.acme.ghe.com/": "https://acme.ghe.com",
		"https://api.acme.ghe.com":  "https://acme.ghe.com",
		"https://API.Acme.GHE.com/": "https://acme.ghe.com",
		"https://api.example.com/":  "https://api.example.com",
		"https://api.ghe.com.evil/": "https://api.ghe.com.evil",
	}
	// The simulator's own pair: its REST base maps to its web root.
	sim := ghsimtest.New(t)
	cases[sim.URL()] = sim.WebURL()
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := WebURL(in); got != want {
				t.Errorf("WebURL(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestTokenFormat(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || !strings.HasPrefix(a, TokenPrefix) || len(a) != len(TokenPrefix)+43 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if HashToken(a) == HashToken(b) || len(HashToken(a)) != 64 || strings.Contains(HashToken(a), a) {
		t.Fatal("hash")
	}
	if p := TokenDisplayPrefix(a); !strings.HasPrefix(a, p) || len(p) >= len(a)/2 {
		t.Fatalf("prefix %q", p)
	}
}
