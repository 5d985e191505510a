package reviewrequest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// RepoConfig is a repository's .github/chakshu.yml as read from its default
// branch.
type RepoConfig struct {
	reviewerconfig.RepoConfig
	// Found is false when the file does not exist (the defaults apply).
	Found bool
	// Invalid is the *reviewerconfig.ParseError of a file that does not parse or
	// is over the size limit; the defaults apply and Config is zero.
	Invalid error
	// SHA is the blob SHA of the file read: a report of Invalid is made once
	// per file version.
	SHA string
}

// LoadRepoConfig reads .github/chakshu.yml from repo's default branch, never
// from a pull request's head (DESIGN §7). The ref is refs/heads/<branch>, so a
// tag named like the branch cannot stand in for it. A missing file or a
// directory of that name is the zero config; a file that does not parse is
// Found with Invalid set; only failures to read it are errors.
func LoadRepoConfig(ctx context.Context, gc *github.Client, repo *ent.Repository) (RepoConfig, error) {
	if repo.DefaultBranch == "" {
		return RepoConfig{}, errors.New("load chakshu.yml: default branch unknown")
	}
	path := reviewerconfig.RepoConfigPath
	fc, _, resp, err := gc.Repositories.GetContents(ctx, repo.Owner, repo.Name, path,
		&github.RepositoryContentGetOptions{Ref: "refs/heads/" + repo.DefaultBranch})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return RepoConfig{}, nil
	}
	if err != nil {
		return RepoConfig{}, fmt.Errorf("read %s of %s: %w", path, repo.FullName, err)
	}
	if fc == nil || fc.GetType() != "file" {
		return RepoConfig{}, nil
	}
	out := RepoConfig{Found: true, SHA: fc.GetSHA()}
	if fc.GetSize() > reviewerconfig.MaxRepoConfigBytes {
		out.Invalid = &reviewerconfig.ParseError{Problems: []reviewerconfig.Problem{{File: path,
			Msg: fmt.Sprintf("file is %d bytes, over the %d byte limit", fc.GetSize(), reviewerconfig.MaxRepoConfigBytes)}}}
		return out, nil
	}
	text, err := fc.GetContent()
	if err != nil {
		return RepoConfig{}, fmt.Errorf("decode %s of %s: %w", path, repo.FullName, err)
	}
	rc, err := reviewerconfig.ParseRepoConfig([]byte(text))
	var pe *reviewerconfig.ParseError
	switch {
	case errors.As(err, &pe):
		out.Invalid = err
	case err != nil:
		return RepoConfig{}, fmt.Errorf("parse %s of %s: %w", path, repo.FullName, err)
	default:
		out.RepoConfig = rc
	}
	return out, nil
}
