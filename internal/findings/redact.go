package findings

import "github.com/chakshu-dev/chakshu/internal/redact"

// Redact removes credentials from every text the agent wrote (the agent may
// quote a key committed in the PR): summary, titles and bodies get
// [REDACTED] (evidence too); a suggestion that held a credential is dropped, as applying it
// would commit the mask. It reports whether anything changed.
func (r *Result) Redact() bool {
	changed := false
	red := func(s *string) {
		if v := redact.String(*s); v != *s {
			*s, changed = v, true
		}
	}
	red(&r.Summary)
	for i := range r.Findings {
		f := &r.Findings[i]
		red(&f.Title)
		red(&f.Body)
		red(&f.Evidence) // CheckEvidence matches a masked quote against the masked file
		if f.Suggestion != nil && redact.String(*f.Suggestion) != *f.Suggestion {
			f.Suggestion, changed = nil, true
		}
	}
	return changed
}

// Redact removes credentials from the reply text; it reports whether
// anything changed.
func (r *ReplyResult) Redact() bool {
	v := redact.String(r.Reply)
	changed := v != r.Reply
	r.Reply = v
	return changed
}
