package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/internal/enrol"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/version"
	"github.com/chakshu-dev/chakshu/server/auth"
)

const enrolHelp = `Usage: chakshu enrol [--token-env NAME] [--github-url URL] [--all OWNER] [OWNER/REPO...]

Enrols repositories with the operator's own GitHub token: for each one whose
.github/workflows/chakshu.yml is missing, outdated or not dispatchable, it
creates the branch chakshu/onboarding, commits this version's template there
and opens one pull request into the default branch (an open one is reused).
It never pushes to a default branch. The token needs write access and may
write workflows (a classic token's workflow scope, or a fine-grained token's
Workflows: write). One line per repository; exit 1 if any failed.

Flags:`

func enrolCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("enrol", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tokenEnv := fs.String("token-env", "GITHUB_TOKEN", "the environment variable holding the token")
	apiURL := fs.String("github-url", "", "GitHub's REST base (default CHAKSHU_GITHUB_URL, else https://api.github.com/)")
	all := fs.String("all", "", "every repository of this owner the token can write to")
	fs.Usage = func() {
		fmt.Fprintln(stdout, enrolHelp)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	if stop, err := parseFlags(fs, args); stop {
		return err
	}
	if fs.NArg() == 0 && *all == "" {
		fs.Usage()
		return errUsage
	}
	token := os.Getenv(*tokenEnv)
	if token == "" {
		return fmt.Errorf("enrol: $%s is empty: set it to a token that may write workflows", *tokenEnv)
	}
	base := firstSet(*apiURL, os.Getenv("CHAKSHU_GITHUB_URL"), "https://api.github.com/")
	c := gh.NewREST(&http.Client{Timeout: time.Minute, Transport: tokenTransport{token: token}}, base)
	web := auth.WebURL(base)
	repos := fs.Args()
	if *all != "" {
		more, err := ownerRepos(ctx, c, *all)
		if err != nil {
			return err
		}
		repos = append(repos, more...)
	}
	cfg := enrol.Config{Template: action.WorkflowTemplate, Version: version.Version}
	failed := 0
	for _, full := range repos {
		owner, name, ok := strings.Cut(full, "/")
		if !ok || owner == "" || name == "" {
			fmt.Fprintf(stdout, "%s: error: not OWNER/REPO\n", full)
			failed++
			continue
		}
		out, err := enrol.Enrol(ctx, c, cfg, owner, name)
		if err != nil {
			fmt.Fprintf(stdout, "%s: error: %v\n", full, err)
			failed++
			continue
		}
		switch out.Action {
		case enrol.Current:
			fmt.Fprintf(stdout, "%s: already current\n", full)
		case enrol.Opened:
			fmt.Fprintf(stdout, "%s: %s, opened %s\n", full, out.Before.State, out.Pull.URL)
		case enrol.Reused:
			fmt.Fprintf(stdout, "%s: %s, pull request already open %s\n", full, out.Before.State, out.Pull.URL)
		case enrol.NotPermitted:
			link := enrol.NewFileURL(web, full, out.Before.Branch, action.WorkflowTemplate)
			if out.Before.Exists {
				link = enrol.EditFileURL(web, full, out.Before.Branch)
			}
			fmt.Fprintf(stdout, "%s: %s, not permitted: %s; commit it yourself: %s\n", full, out.Before.State, out.Reason, link)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("enrol: %d of %d repositories not enrolled", failed, len(repos))
	}
	return nil
}

// ownerRepos lists owner's repositories the token can push to.
func ownerRepos(ctx context.Context, c *github.Client, owner string) ([]string, error) {
	var out []string
	opt := &github.RepositoryListByAuthenticatedUserOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.Repositories.ListByAuthenticatedUser(ctx, opt)
		if err != nil {
			return nil, fmt.Errorf("enrol: list repositories: %w", err)
		}
		for _, r := range page {
			if strings.EqualFold(r.GetOwner().GetLogin(), owner) && !r.GetArchived() {
				out = append(out, r.GetFullName())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if len(out) == 0 {
		return nil, errors.New("enrol: the token reaches no repository of " + owner)
	}
	return out, nil
}

type tokenTransport struct{ token string }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
