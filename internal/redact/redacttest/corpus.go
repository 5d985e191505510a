// Package redacttest holds the credential corpus the redaction tests (unit
// and end to end) push through Chakshu: every shape that must never survive.
package redacttest

import "strings"

// Corpus is every credential shape Chakshu may meet, as it appears in the
// wild (errors, logs, JSON, URLs, code). The reliability tests push the same
// corpus through every public and operator surface.
var Corpus = map[string]string{
	"ghp classic PAT":       "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
	"gho OAuth token":       "gho_16C7e42F292c6912E7710c838347Ae178B4a",
	"ghu user-to-server":    "ghu_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8",
	"ghs installation":      "ghs_Qw3rTy7uI0oP1aS2dF3gH4jK5lZ6xC7vB8nM",
	"ghr refresh token":     "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498",
	"ghs long installation": "ghs_1234567_eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJnaXRodWIiLCJpbnN0YWxsYXRpb25faWQiOjQyLCJhcHBfaWQiOjEyMzQ1Njd9.kq-Z3_aB9cD8eF7gH6iJ5kL4mN3oP2qR1sT0uV9wX8yZ7-a6B5c4D3e2F1g0H",
	"fine-grained PAT":      "github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678",
	"v1 installation":       "v1.0123456789abcdef0123456789abcdef01234567",
	"anthropic api key":     "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrSt-AbCdEfAA",
	"anthropic admin key":   "sk-ant-admin01-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210_ZyXwVuTsRqPoNmLkJiHgFeDcBa",
	"aws access key id":     "AKIAIOSFODNN7EXAMPLE",
	"aws session key id":    "ASIAY34FZKBOKMUTVV7A",
	"aws secret env":        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"aws secret json":       `{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKY"}`,
	"rsa pem":               "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----",
	"pkcs8 pem":             "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----",
	"openssh pem":           "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
	"pem escaped in json":   `"key":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----"`,
	"url user:password":     "https://deploy:Sup3rS3cretPassw0rd@git.example.com/acme/repo.git",
	"url x-access-token":    "https://x-access-token:ghs_Qw3rTy7uI0oP1aS2dF3gH4jK5lZ6xC7vB8nM@github.com/acme/payments-api.git",
	"postgres url":          "postgres://chakshu:pg-Pa55w0rd-xyz-long@db.internal:5432/chakshu?sslmode=require",
	"jwt":                   "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJyZXBvOmFjbWUvcGF5bWVudHMtYXBpIiwiYXVkIjoiY2hha3NodSJ9.c2lnbmF0dXJlLXRoYXQtaXMtbG9uZy1lbm91Z2gtdG8tbG9vay1yZWFs",
	"bearer header":         "Authorization: Bearer q8Zt3LmN0pRs7VwX2yA5bC9dE4fG6hJ1",
	"token header":          "Authorization: token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
	"chakshu run token":     "chkr_Zq1Xw2Ec3Rv4Tb5Yn6Um7Ik8Ol9P0aSdF",
	"aws session token":     "IQoJb3JpZ2luX2VjEHwaCXVzLWVhc3QtMSJHMEUCIQDk9Xq7Zr2Lm5Np8Ws3Tv6Yb1Ac4Df7Gh0Jk3Mn6Pq9St2Vw==",
	"aws security header":   "X-Amz-Security-Token: AgoJb3JpZ2luX2VjEHwaCXVzLWVhc3QtMSJHMEUCIQDk9Xq7Zr2Lm5Np8Ws3Tv6Yb1A",
	"google access token":   "ya29.a0AfB_byC7Xq2Lm5Np8Ws3Tv6Yb1Ac4Df7Gh0Jk3Mn6Pq9St2Vw5Yz8",
	"google sa key json":    `{"type": "service_account", "private_key_id": "3f2a9c1e7b4d8a6f0c5e2b9d7a1f4c8e6b3d0a92", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDZx4\n-----END PRIVATE KEY-----\n"}`,
	"azure api key":         "api-key: 8f2c4e6a1b3d5f7091a2c4e6b8d0f1a3",
	"foundry key env":       "ANTHROPIC_FOUNDRY_API_KEY=Fq7Zr2Lm5Np8Ws3Tv6Yb1Ac4Df7Gh0Jk3Mn6Pq9St2Vw5Yz8Bc1Ef4Hi7",
	"openai style key":      "sk-proj-Zr2Lm5Np8Ws3Tv6Yb1Ac4Df7Gh0Jk3Mn6Pq9St2",
}

// SecretParts are the pieces of a corpus entry that must not survive.
func SecretParts(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool {
		return strings.ContainsRune(" \n\"{}:=@/?,\\", r)
	}) {
		if len(f) >= 16 && !strings.Contains(f, "-----") && !strings.Contains(f, "example.com") && !strings.Contains(f, "SecretAccessKey") &&
			!strings.HasPrefix(f, "payments-api") && !strings.HasPrefix(f, "x-access-token") && !strings.HasPrefix(f, "AWS_SECRET") &&
			!strings.HasPrefix(f, "X-Amz-Security") && !strings.HasPrefix(f, "ANTHROPIC_FOUNDRY") {
			out = append(out, f)
		}
	}
	return out
}

// Survivors returns the corpus pieces still present in s.
func Survivors(s string) []string {
	var out []string
	for name, v := range Corpus {
		for _, p := range SecretParts(v) {
			if strings.Contains(s, p) {
				out = append(out, name+": "+p)
			}
		}
	}
	return out
}
