package gh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"
)

// Scope is the set of App permissions one operation's installation token
// carries (GitHub's access_tokens "permissions" object: name → read|write).
// GitHub mints a token narrowed to fewer permissions than the installation
// has, never more (docs "Create an installation access token for an app").
type Scope map[string]string

var (
	// ScopeDefault is every permission Chakshu's operations use except
	// Contents: write, which only the thread-resolving step holds.
	ScopeDefault = Scope{
		"actions": "write", "checks": "write", "contents": "read", "pull_requests": "write",
		"issues": "write", "members": "read", "metadata": "read",
	}
	// ScopeResolve resolves review threads: GitHub gates resolveReviewThread
	// on Contents: write for App tokens (github/gh-aw#35726, oven-sh/bun#40468).
	ScopeResolve = Scope{"contents": "write", "pull_requests": "write", "metadata": "read"}
	// ScopeRead reads repositories and pull requests (the runner's job:
	// the PR, its files, diff and comments, the repository's config).
	ScopeRead = Scope{"contents": "read", "pull_requests": "read", "metadata": "read"}
	// ScopeConnectors is the github connector's: ScopeRead and issues.
	ScopeConnectors = Scope{"contents": "read", "pull_requests": "read", "issues": "read", "metadata": "read"}
)

// String is the scope as "name:level" pairs, sorted (a cache key and a log value).
func (s Scope) String() string {
	parts := make([]string, 0, len(s))
	for k, v := range s {
		parts = append(parts, k+":"+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// Covers reports whether level have of a permission grants want.
func Covers(have, want string) bool {
	return have == "admin" || have == "write" && want != "admin" || have == "read" && want == "read"
}

// within is s cut down to what granted holds: a permission granted at a lower
// level keeps that level, one not granted is dropped.
func (s Scope) within(granted Scope) Scope {
	out := Scope{}
	for k, want := range s {
		have := granted[k]
		switch {
		case Covers(have, want):
			out[k] = want
		case have != "":
			out[k] = have
		}
	}
	return out
}

func (s Scope) options() *github.InstallationTokenOptions {
	b, _ := json.Marshal(s)
	var p github.InstallationPermissions
	_ = json.Unmarshal(b, &p)
	return &github.InstallationTokenOptions{Permissions: &p}
}

// regrantAfter is how long a token cut down to an installation's granted
// permissions is kept before the full scope is asked for again (an owner
// may have accepted the App's new permissions meanwhile).
const regrantAfter = 10 * time.Minute

// scopedTransport authenticates as one installation with a token narrowed to
// a scope. When the installation has not granted part of the scope (GitHub
// answers 422 "The permissions requested are not granted to this
// installation"), it reads what the installation holds and asks again for
// the scope cut down to that, so an operation keeps working with what it may
// do and the one call that needs more answers GitHub's own refusal.
type scopedTransport struct {
	a     *Apps
	id    int64
	scope Scope

	mu      sync.Mutex
	tr      *ghinstallation.Transport
	reduced time.Time // when tr was cut down; zero when tr has the full scope
}

func (a *Apps) newScoped(id int64, scope Scope) (*scopedTransport, error) {
	st := &scopedTransport{a: a, id: id, scope: scope}
	tr, err := st.transport(scope)
	if err != nil {
		return nil, err
	}
	st.tr = tr
	return st, nil
}

func (st *scopedTransport) transport(s Scope) (*ghinstallation.Transport, error) {
	tr, err := ghinstallation.New(st.a.base, st.a.cfg.AppID, st.id, st.a.cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("github: installation %d: %w", st.id, err)
	}
	tr.BaseURL = strings.TrimSuffix(st.a.cfg.BaseURL, "/")
	tr.InstallationTokenOptions = s.options()
	return tr, nil
}

// Token returns a current token of the scope (or of what the installation
// grants of it).
func (st *scopedTransport) Token(ctx context.Context) (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.reduced.IsZero() && time.Since(st.reduced) > regrantAfter {
		tr, err := st.transport(st.scope)
		if err != nil {
			return "", err
		}
		st.tr, st.reduced = tr, time.Time{}
	}
	tok, err := st.tr.Token(ctx)
	if err == nil || !notGranted(err) || !st.reduced.IsZero() {
		return tok, err
	}
	granted, gerr := st.a.Granted(ctx, st.id)
	if gerr != nil {
		return "", fmt.Errorf("%w (and reading the installation's permissions: %v)", err, gerr)
	}
	tr, terr := st.transport(st.scope.within(granted))
	if terr != nil {
		return "", terr
	}
	st.tr, st.reduced = tr, time.Now()
	return st.tr.Token(ctx)
}

// regrant drops a token cut down to the granted permissions, so the next
// one asks for the full scope.
func (st *scopedTransport) regrant() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.reduced.IsZero() {
		return
	}
	if tr, err := st.transport(st.scope); err == nil {
		st.tr, st.reduced = tr, time.Time{}
	}
}

func (st *scopedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// Token settles which transport holds the scope (and caches its
	// token); that transport then sends the request as ghinstallation does.
	if _, err := st.Token(req.Context()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	st.mu.Lock()
	tr := st.tr
	st.mu.Unlock()
	return tr.RoundTrip(req)
}

// notGranted is GitHub's 422 refusal of a token scope the installation does
// not hold.
func notGranted(err error) bool {
	var he *ghinstallation.HTTPError
	return errors.As(err, &he) && he.Response != nil && he.Response.StatusCode == http.StatusUnprocessableEntity
}

// InstallationOf reads installation id as the App (GET
// /app/installations/{id}): its account, permissions and state.
func (a *Apps) InstallationOf(ctx context.Context, id int64) (*github.Installation, error) {
	in, _, err := a.App().Apps.GetInstallation(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("github: read installation %d: %w", id, err)
	}
	return in, nil
}

// Granted returns the permissions installation id holds now (GET
// /app/installations/{id}, as the App).
func (a *Apps) Granted(ctx context.Context, id int64) (Scope, error) {
	in, err := a.InstallationOf(ctx, id)
	if err != nil {
		return nil, err
	}
	out := Scope{}
	b, _ := json.Marshal(in.GetPermissions())
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("github: installation %d permissions: %w", id, err)
	}
	return out, nil
}
