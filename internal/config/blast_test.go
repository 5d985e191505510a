package config

import (
	"strings"
	"testing"
)

func TestBlastRadiusSettings(t *testing.T) {
	cases := []struct {
		name, cap, conclusion string
		wantCap               int
		wantConclusion        string
		err                   string
	}{
		{"defaults", "", "", 0, InfraFailureFailure, ""},
		{"a cap", "5", "neutral", 5, InfraFailureNeutral, ""},
		{"0 is no cap", "0", "FAILURE", 0, InfraFailureFailure, ""},
		{"negative cap", "-1", "", 0, "", "CHAKSHU_MAX_CONCURRENT_RUNS"},
		{"cap not a number", "ten", "", 0, "", "CHAKSHU_MAX_CONCURRENT_RUNS"},
		{"other conclusion", "", "success", 0, "", "CHAKSHU_INFRA_FAILURE_CONCLUSION"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := loadCase(t, map[string]string{"CHAKSHU_MAX_CONCURRENT_RUNS": tc.cap, "CHAKSHU_INFRA_FAILURE_CONCLUSION": tc.conclusion}, tc.err)
			if c == nil {
				return
			}
			if c.MaxConcurrentRuns != tc.wantCap || c.InfraFailureConclusion != tc.wantConclusion {
				t.Errorf("got %d/%s, want %d/%s", c.MaxConcurrentRuns, c.InfraFailureConclusion, tc.wantCap, tc.wantConclusion)
			}
		})
	}
}

// loadCase loads the settings with the non-empty values of env set. When
// wantErr is not empty the load must fail with an error that starts with it
// (the setting's name), and loadCase returns nil.
func loadCase(t *testing.T, env map[string]string, wantErr string) *Config {
	t.Helper()
	set := map[string]string{}
	for k, v := range env {
		if v != "" {
			set[k] = v
		}
	}
	c, err := Load(lookup(set))
	if wantErr != "" {
		if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
			t.Fatalf("err %v, want one naming %s", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}
