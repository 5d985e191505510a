package auth

import (
	"strings"
	"testing"
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
	}
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
