package events

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
)

// reportConfig returns the reporter of an invalid .github/chakshu.yml for
// reviewrequest.Request: the problem is told on PR pr once per PR and file version,
// and the defaults apply.
func (h *handler) reportConfig(repo *ent.Repository, pr int) func(context.Context, reviewrequest.RepoConfig) error {
	return func(ctx context.Context, rc reviewrequest.RepoConfig) error {
		logging.From(ctx).Info("invalid repo config; defaults apply", "sha", rc.SHA, "err", rc.Invalid)
		marker := fmt.Sprintf("<!-- chakshu:config-error:%s -->", safeMarker(rc.SHA))
		return h.comment(ctx, repo, pr, marker, configErrorMessage(repo.DefaultBranch, rc.Invalid.Error()), true)
	}
}

// safeMarker keeps a value fit for a hidden marker.
func safeMarker(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.' {
			out = append(out, c)
		}
	}
	if len(out) > 100 {
		out = out[:100]
	}
	return string(out)
}
