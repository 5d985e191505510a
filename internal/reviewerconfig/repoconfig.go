package reviewerconfig

import (
	"strings"

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
