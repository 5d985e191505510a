package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	secrets := []string{
		"ghp_" + strings.Repeat("a1B2", 9),
		"gho_" + strings.Repeat("x", 36),
		"ghu_" + strings.Repeat("Y", 36),
		"ghs_" + strings.Repeat("z9", 18),
		"github_pat_11ABCDEFG0123456789_" + strings.Repeat("q", 59),
		"v1." + strings.Repeat("ab12", 10),
		"sk-ant-api03-" + strings.Repeat("K", 40),
		"AKIAIOSFODNN7EXAMPLE",
		"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
		"chkr_" + strings.Repeat("r", 43),
	}
	for _, s := range secrets {
		t.Run(s[:8], func(t *testing.T) {
			got := String("failed: " + s + " while posting")
			if strings.Contains(got, s) || !strings.Contains(got, mask) {
				t.Fatalf("String kept the secret: %q", got)
			}
			if !strings.HasPrefix(got, "failed: ") || !strings.HasSuffix(got, " while posting") {
				t.Fatalf("String lost the surrounding text: %q", got)
			}
		})
	}
	cases := map[string]string{
		"https://x-access-token:ghs_abc@github.com/o/r.git":                "https://" + mask + "@github.com/o/r.git",
		"postgres://u:hunter2@db/x":                                        "postgres://" + mask + "@db/x",
		"Authorization: Bearer abcdefghijklmnop1234":                       "Authorization: Bearer " + mask,
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "aws_secret_access_key = " + mask,
		"nothing secret here: ghp_short":                                   "nothing secret here: ghp_short",
		"branch risk-assessment-module-refactor-2":                         "branch risk-assessment-module-refactor-2",
		"key=sk-proj-Zr2Lm5Np8Ws3Tv6Yb1Ac4Df7":                             "key=" + mask,
		"x-api-key: Zr2Lm5Np8Ws3Tv6Yb1Ac4Df7Gh0":                           "x-api-key: " + mask,
	}
	for in, want := range cases {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
