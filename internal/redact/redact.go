// Package redact removes credentials from text bound for operator surfaces
// (database, logs, the portal) and gives safe sentences for public ones.
package redact

import (
	"regexp"
)

const mask = "[REDACTED]"

// Mask is what String puts in place of a credential.
const Mask = mask

// rule is one credential shape; keep is how many leading submatches (the
// names around the secret, e.g. "https://" or "AWS_SECRET_ACCESS_KEY=") are
// kept before the mask, sep goes between them and suffix follows the mask.
type rule struct {
	re          *regexp.Regexp
	keep        int
	sep, suffix string
}

// Prefixed shapes are not anchored with \b on the left: in JSON-escaped or
// glued text ("\nghp_…", "TOKEN_ghs_…") there is no word boundary before them.
var rules = []rule{
	// PEM private keys, whole blocks (and truncated ones).
	{re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`)},
	// URLs with credentials: x-access-token:…@, user:password@.
	{re: regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`), keep: 1, suffix: "@"},
	// GitHub tokens: classic, OAuth, user-to-server, refresh and installation
	// tokens, including the long installation form ghs_<app id>_<JWT> whose
	// dots would otherwise end the match.
	{re: regexp.MustCompile(`(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_\-]{16,}(\.[A-Za-z0-9_\-]+){0,2}`)},
	// Fine-grained personal access tokens.
	{re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{20,}`)},
	// Installation tokens in the old long v1 form.
	{re: regexp.MustCompile(`v1\.[0-9a-f]{40}\b`)},
	// Anthropic keys (api03, admin01…).
	{re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{10,}`)},
	// AWS access key ids and secrets next to their names (env, JSON, INI,
	// and JSON quoted again inside a string).
	{re: regexp.MustCompile(`(AKIA|ASIA)[A-Z0-9]{16}\b`)},
	{re: regexp.MustCompile(`(?i)((?:aws_)?secret_?access_?key\\?["']?\s*[=:]\s*)\\?["']?[A-Za-z0-9/+=]{40}\\?["']?`), keep: 1},
	// AWS session tokens (STS and IAM Identity Center issue them beginning
	// with these base64 prefixes), and any value named as one.
	{re: regexp.MustCompile(`(IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9/+=]{40,}`)},
	{re: regexp.MustCompile(`(?i)((?:aws_session_token|x-amz-security-token|sessiontoken)\\?["']?\s*[=:]\s*)\\?["']?[A-Za-z0-9/+=%]{40,}\\?["']?`), keep: 1},
	// Google: OAuth access and refresh tokens, and a service account key's id
	// (its private_key is a PEM block, caught above even when JSON-escaped).
	{re: regexp.MustCompile(`ya29\.[A-Za-z0-9_\-\.]{20,}`)},
	{re: regexp.MustCompile(`1//0[A-Za-z0-9_\-]{30,}`)},
	{re: regexp.MustCompile(`(?i)(private_key_id\\?["']?\s*[=:]\s*)\\?["']?[0-9a-f]{40}\\?["']?`), keep: 1},
	// Azure keys (Azure OpenAI, Foundry, API Management) and x-api-key
	// values next to their names, and OpenAI-style sk- keys.
	{re: regexp.MustCompile(`(?i)((?:api-key|x-api-key|ocp-apim-subscription-key|azure_openai_api_key|[a-z_]*foundry_api_key|[a-z_]*openai_api_key)\\?["']?\s*[=:]\s*)\\?["']?[A-Za-z0-9_\-]{20,}\\?["']?`), keep: 1},
	{re: regexp.MustCompile(`(^|[^A-Za-z0-9]|\\n)sk-[A-Za-z0-9_\-]{20,}`), keep: 1},
	// JWTs.
	{re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}`)},
	// Bearer / token authorization values.
	{re: regexp.MustCompile(`(?i)\b(bearer|token|basic)\s+[A-Za-z0-9_\-\.=+/]{12,}`), keep: 1, sep: " "},
	// Chakshu's own run tokens and API tokens.
	{re: regexp.MustCompile(`chk(r|t)_[A-Za-z0-9_\-]{16,}`)},
}

// String returns s with every credential shape replaced by [REDACTED].
func String(s string) string {
	for _, r := range rules {
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			out := ""
			if r.keep > 0 {
				sub := r.re.FindStringSubmatch(m)
				for i := 1; i <= r.keep && i < len(sub); i++ {
					out += sub[i]
				}
			}
			return out + r.sep + mask + r.suffix
		})
	}
	return s
}

// Error returns err's text, redacted; "" for nil.
func Error(err error) string {
	if err == nil {
		return ""
	}
	return String(err.Error())
}
