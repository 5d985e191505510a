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
			env := map[string]string{}
			if tc.cap != "" {
				env["CHAKSHU_MAX_CONCURRENT_RUNS"] = tc.cap
			}
			if tc.conclusion != "" {
				env["CHAKSHU_INFRA_FAILURE_CONCLUSION"] = tc.conclusion
			}
			c, err := Load(lookup(env))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.MaxConcurrentRuns != tc.wantCap || c.InfraFailureConclusion != tc.wantConclusion {
				t.Errorf("got %d/%s, want %d/%s", c.MaxConcurrentRuns, c.InfraFailureConclusion, tc.wantCap, tc.wantConclusion)
			}
		})
	}
}
