package config

import (
	"testing"
)

func TestGitHubWritePace(t *testing.T) {
	cases := []struct {
		name, minute, hour string
		wantMin, wantHour  int
		err                string
	}{
		{"defaults are GitHub's limits", "", "", 80, 500, ""},
		{"Enterprise Server's own", "200", "3000", 200, 3000, ""},
		{"0 turns a window off", "0", "0", 0, 0, ""},
		{"negative", "-1", "", 0, 0, "CHAKSHU_GITHUB_WRITES_PER_MINUTE"},
		{"not a number", "", "500/h", 0, 0, "CHAKSHU_GITHUB_WRITES_PER_HOUR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := loadCase(t, map[string]string{"CHAKSHU_GITHUB_WRITES_PER_MINUTE": tc.minute, "CHAKSHU_GITHUB_WRITES_PER_HOUR": tc.hour}, tc.err)
			if c == nil {
				return
			}
			if c.GitHubWritesPerMinute != tc.wantMin || c.GitHubWritesPerHour != tc.wantHour {
				t.Errorf("got %d/%d, want %d/%d", c.GitHubWritesPerMinute, c.GitHubWritesPerHour, tc.wantMin, tc.wantHour)
			}
		})
	}
}

func TestOIDCIssuerDefaults(t *testing.T) {
	cases := []struct{ api, want string }{
		{DefaultGitHubURL, DefaultOIDCIssuer},
		{"https://api.github.com/", DefaultOIDCIssuer},
		// GHE.com (data residency): the API is api.SUBDOMAIN.ghe.com and the
		// issuer token.actions.SUBDOMAIN.ghe.com, not an Enterprise Server's.
		{"https://api.octocorp.ghe.com/", "https://token.actions.octocorp.ghe.com"},
		{"https://api.OctoCorp.GHE.com", "https://token.actions.octocorp.ghe.com"},
		{"https://github.example.com/api/v3/", "https://github.example.com/_services/token"},
		// a host that only ends like GHE.com is an Enterprise Server
		{"https://notghe.com/api/v3/", "https://notghe.com/_services/token"},
	}
	for _, tc := range cases {
		if got := DefaultOIDCIssuerFor(tc.api); got != tc.want {
			t.Errorf("DefaultOIDCIssuerFor(%q) = %q, want %q", tc.api, got, tc.want)
		}
	}
}
