package security

import (
	"testing"

	"github.com/chakshu-dev/chakshu/server/auth"
)

// TestLoginReturnToStaysOnSite: return_to after login must stay a path on
// this site. Browsers (WHATWG URL parsing) remove tab, CR and LF anywhere in
// a URL, strip leading C0 controls and spaces, and treat "\" like "/" in
// http(s) URLs, so "/\t/evil.com" and "/\evil.com" both become
// "//evil.com", a scheme-relative address of another host.
func TestLoginReturnToStaysOnSite(t *testing.T) {
	refused := []string{
		"",
		"runs",
		"https://evil.com",
		"//evil.com",
		"///evil.com",
		"/\\evil.com",
		"\\/evil.com",
		"/\\/evil.com",
		"/\t/evil.com",
		"/\n/evil.com",
		"/\r/evil.com",
		"\t//evil.com",
		" //evil.com",
		"/\x00/evil.com",
		"/\x0b/evil.com",
		"/\x0c/evil.com",
		"/\x1f/evil.com",
		"/\x7f/evil.com",
		"/%09/evil.com",
		"/%0a/evil.com",
		"/%0D/evil.com",
		"/%5c/evil.com",
		"/%5Cevil.com",
		"/%2f/evil.com",
		"/%2F%2Fevil.com",
		"/runs\\..\\..\\evil",
		"/a\r\nSet-Cookie: x=1",
		"/\u00a0/evil.com",
		"/\u2028/evil.com",
		"/\uff0f/evil.com", // fullwidth solidus
		"/%",               // not decodable
	}
	for _, in := range refused {
		if got := auth.SafeReturn(in); got != "/" {
			t.Errorf("SafeReturn(%q) = %q, want the site root", in, got)
		}
	}
	kept := []string{
		"/",
		"/runs",
		"/runs?status=failed&repo=acme%2Fapi",
		"/runs/12#finding-3",
		"/reviewers/a%20b",
	}
	for _, in := range kept {
		if got := auth.SafeReturn(in); got != in {
			t.Errorf("SafeReturn(%q) = %q, want it kept", in, got)
		}
	}
}
