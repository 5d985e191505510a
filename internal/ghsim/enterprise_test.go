package ghsim_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// Enterprise Server mode: the OIDC issuer lives at /_services/token and
// GET /meta names the version; github.com mode has neither.
func TestEnterpriseServerMode(t *testing.T) {
	for _, tc := range []struct{ version, issuerPath string }{{"3.19.0", "/_services/token"}, {"", "/oidc"}} {
		s := ghsimtest.New(t, ghsim.Options{EnterpriseVersion: tc.version})
		if !strings.HasSuffix(s.IssuerURL(), tc.issuerPath) {
			t.Fatalf("issuer %s, want …%s", s.IssuerURL(), tc.issuerPath)
		}
		var disc struct{ Issuer string }
		getJSON(t, s.IssuerURL()+"/.well-known/openid-configuration", &disc)
		if disc.Issuer != s.IssuerURL() {
			t.Fatalf("discovery issuer %q, want %q", disc.Issuer, s.IssuerURL())
		}
		var meta map[string]any
		getJSON(t, s.URL()+"meta", &meta)
		if got, _ := meta["installed_version"].(string); got != tc.version {
			t.Fatalf("installed_version %q, want %q", got, tc.version)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
