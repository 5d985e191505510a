package reviewers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v88/github"
	"gopkg.in/yaml.v3"
)

// RepoConfigPath is where a repository's Chakshu settings live, on its default branch.
const RepoConfigPath = ".github/chakshu.yml"

// Limits of a chakshu.yml.
const (
	// MaxRepoConfigBytes caps the size of .github/chakshu.yml.
	MaxRepoConfigBytes = 32 << 10
	// MaxInstructions caps the instructions put in the prompt.
	MaxInstructions = 8000
	maxPathFilters  = 100
)

var repoKeys = []string{"reviewers", "auto", "instructions", "path_filters"}

// ParseRepoConfig parses and validates a .github/chakshu.yml. An empty file
// is the zero RepoConfig. The error, a *ParseError, names the line of every
// problem; on error the returned config is the zero one (the defaults apply).
func ParseRepoConfig(b []byte) (RepoConfig, error) {
	c := &checker{file: RepoConfigPath}
	var rc RepoConfig
	root := c.root(b, MaxRepoConfigBytes)
	if root == nil {
		return rc, c.err()
	}
	for _, f := range c.fields(root, "", repoKeys) {
		switch f.key {
		case "reviewers":
			rc.Reviewers = c.names(f, "reviewers")
		case "instructions":
			if s, ok := c.str(f, "instructions", MaxInstructions); ok {
				rc.Instructions = strings.TrimSpace(s)
			}
		case "path_filters":
			rc.PathFilters = c.globs(f, "path_filters", maxPathFilters)
		case "auto":
			rc.Auto = c.repoAuto(f)
		}
	}
	if err := c.err(); err != nil {
		return RepoConfig{}, err
	}
	return rc, nil
}

func (c *checker) repoAuto(f field) *RepoAuto {
	if f.value.Kind == yaml.ScalarNode { // auto: false
		b, ok := c.boolean(f, "auto")
		if !ok {
			return nil
		}
		return &RepoAuto{Enabled: &b}
	}
	if f.value.Kind != yaml.MappingNode {
		c.addf(f.value.Line, "auto: want true, false or a mapping with enabled, reviewers, drafts")
		return nil
	}
	a := &RepoAuto{}
	for _, g := range c.fields(f.value, "auto.", []string{"enabled", "reviewers", "drafts"}) {
		switch g.key {
		case "enabled":
			if b, ok := c.boolean(g, "auto.enabled"); ok {
				a.Enabled = &b
			}
		case "drafts":
			if b, ok := c.boolean(g, "auto.drafts"); ok {
				a.Drafts = &b
			}
		case "reviewers":
			a.Reviewers = c.names(g, "auto.reviewers")
		}
	}
	return a
}

// LoadRepoConfig reads .github/chakshu.yml from the repository's default
// branch, never from a pull request's head. found is false when the file does
// not exist (the zero config applies). A file that does not parse is found,
// with the zero config and the *ParseError to report on the PR.
func LoadRepoConfig(ctx context.Context, client *github.Client, owner, repo, defaultBranch string) (RepoConfig, bool, error) {
	if defaultBranch == "" {
		return RepoConfig{}, false, errors.New("load chakshu.yml: default branch unknown")
	}
	fc, _, resp, err := client.Repositories.GetContents(ctx, owner, repo, RepoConfigPath,
		&github.RepositoryContentGetOptions{Ref: "refs/heads/" + defaultBranch})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return RepoConfig{}, false, nil
	}
	if err != nil {
		return RepoConfig{}, false, fmt.Errorf("load %s of %s/%s: %w", RepoConfigPath, owner, repo, err)
	}
	if fc == nil || fc.GetType() != "file" {
		return RepoConfig{}, false, nil // a directory of that name is no config
	}
	if fc.GetSize() > MaxRepoConfigBytes {
		return RepoConfig{}, true, &ParseError{Problems: []Problem{{File: RepoConfigPath,
			Msg: fmt.Sprintf("file is %d bytes, over the %d byte limit", fc.GetSize(), MaxRepoConfigBytes)}}}
	}
	text, err := fc.GetContent()
	if err != nil {
		return RepoConfig{}, true, fmt.Errorf("load %s of %s/%s: decode: %w", RepoConfigPath, owner, repo, err)
	}
	rc, err := ParseRepoConfig([]byte(text))
	return rc, true, err
}
