// Package redact removes credentials from text bound for operator surfaces
// (database, logs, the portal) and gives safe sentences for public ones.
package redact

import (
	"regexp"
)

const mask = "[REDACTED]"

var patterns = []*regexp.Regexp{
	// PEM private keys, whole blocks (and truncated ones).
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`),
	// URLs with credentials: x-access-token:…@, user:password@.
	regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`),
	// GitHub tokens: classic and app tokens, fine-grained PATs.
	regexp.MustCompile(`\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{16,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	// Installation tokens in the long v1 form.
	regexp.MustCompile(`\bv1\.[0-9a-f]{40}\b`),
	// Anthropic keys.
	regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{10,}`),
	// AWS access key ids and secrets next to their names.
	regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`),
	regexp.MustCompile(`(?i)(aws_secret_access_key|secret_access_key)(\s*[=:]\s*)["']?[A-Za-z0-9/+=]{40}["']?`),
	// JWTs.
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}`),
	// Bearer / token authorization values.
	regexp.MustCompile(`(?i)\b(bearer|token|basic)\s+[A-Za-z0-9_\-\.=+/]{12,}`),
	// Chakshu's own run tokens and API tokens.
	regexp.MustCompile(`\bchk(r|t)_[A-Za-z0-9_\-]{16,}`),
}

// String returns s with every credential shape replaced by [REDACTED].
func String(s string) string {
	for _, p := range patterns {
		s = p.ReplaceAllStringFunc(s, func(m string) string {
			sub := p.FindStringSubmatch(m)
			switch {
			case p == patterns[1] && len(sub) > 1:
				return sub[1] + mask + "@"
			case p == patterns[7] && len(sub) > 2:
				return sub[1] + sub[2] + mask
			case p == patterns[9] && len(sub) > 1:
				return sub[1] + " " + mask
			}
			return mask
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
