package events

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// repoConfig reads .github/chakshu.yml from the repository's default branch
// (never from the PR). A file that does not parse is reported on the PR once
// per PR and file version, and the defaults apply.
func (h *handler) repoConfig(ctx context.Context, gc *github.Client, repo *ent.Repository, pr int) (reviewers.RepoConfig, error) {
	fc, _, resp, err := gc.Repositories.GetContents(ctx, repo.Owner, repo.Name, reviewers.RepoConfigPath,
		&github.RepositoryContentGetOptions{Ref: repo.DefaultBranch})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return reviewers.RepoConfig{}, nil
	}
	if err != nil {
		return reviewers.RepoConfig{}, fmt.Errorf("read %s of %s: %w", reviewers.RepoConfigPath, repo.FullName, err)
	}
	if fc == nil || fc.GetType() != "file" {
		return reviewers.RepoConfig{}, nil
	}
	var perr error
	var rc reviewers.RepoConfig
	if fc.GetSize() > reviewers.MaxRepoConfigBytes {
		perr = fmt.Errorf("%s is %d bytes, over the %d byte limit", reviewers.RepoConfigPath, fc.GetSize(), reviewers.MaxRepoConfigBytes)
	} else {
		text, err := fc.GetContent()
		if err != nil {
			return reviewers.RepoConfig{}, fmt.Errorf("decode %s of %s: %w", reviewers.RepoConfigPath, repo.FullName, err)
		}
		rc, perr = reviewers.ParseRepoConfig([]byte(text))
	}
	if perr == nil {
		return rc, nil
	}
	var pe *reviewers.ParseError
	if !errors.As(perr, &pe) && fc.GetSize() <= reviewers.MaxRepoConfigBytes {
		return reviewers.RepoConfig{}, fmt.Errorf("parse %s of %s: %w", reviewers.RepoConfigPath, repo.FullName, perr)
	}
	h.log.Info("invalid repo config; defaults apply", "pr", pr, "sha", fc.GetSHA(), "err", perr)
	if pr != 0 {
		marker := fmt.Sprintf("<!-- chakshu:config-error:%s -->", safeMarker(fc.GetSHA()))
		if err := h.comment(ctx, repo, pr, marker, configErrorMessage(repo.DefaultBranch, perr.Error()), true); err != nil {
			return reviewers.RepoConfig{}, err
		}
	}
	return reviewers.RepoConfig{}, nil
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
