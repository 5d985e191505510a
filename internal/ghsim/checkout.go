package ghsim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// FilesAt returns a copy of every file of repo at ref (branch or sha), as a
// checkout would have them; false when ref is unknown.
func (s *Sim) FilesAt(repoName, ref string) (map[string]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	c := r.commits[s.resolve(r, ref)]
	if c == nil {
		return nil, false
	}
	out := make(map[string]string, len(c.files))
	for k, v := range c.files {
		out[k] = v
	}
	return out, true
}

var (
	fullSHA = regexp.MustCompile(`^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$`)
	pullRef = regexp.MustCompile(`^refs/pull/([0-9]+)/head$`)
)

// FetchRef is what actions/checkout gets for ref (its `ref:` input) from
// repo over git, as the sandbox's simulated runner checks out: the commit
// and a copy of its files, or git's error. See API.md, "Checkout":
//   - a full commit SHA is fetched by itself (`git fetch origin <sha>`):
//     GitHub serves any commit it still holds, reachable from a branch, a
//     tag or a pull request's refs/pull/<n>/head (fork PRs included), and a
//     commit a force push dropped until garbage collection removes it
//     (CollectGarbage);
//   - refs/pull/<n>/head is pull request n's head now, open or closed;
//   - refs/heads/<b> or <b> is the branch's head.
func (s *Sim) FetchRef(repoName, ref string) (string, map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	sha := ""
	switch {
	case fullSHA.MatchString(ref):
		sha = strings.ToLower(ref)
		if r.commits[sha] == nil {
			return "", nil, fmt.Errorf("fatal: remote error: upload-pack: not our ref %s", sha)
		}
	case pullRef.MatchString(ref):
		n, _ := strconv.Atoi(pullRef.FindStringSubmatch(ref)[1])
		p := s.pulls[pullKey(r.fullName(), n)]
		if p == nil {
			return "", nil, fmt.Errorf("fatal: couldn't find remote ref %s", ref)
		}
		sha = p.headSHA
	default:
		b := strings.TrimPrefix(ref, "refs/heads/")
		if sha = r.branches[b]; sha == "" {
			return "", nil, fmt.Errorf("fatal: couldn't find remote ref %s", ref)
		}
	}
	c := r.commits[sha]
	if c == nil {
		return "", nil, fmt.Errorf("fatal: remote error: upload-pack: not our ref %s", sha)
	}
	out := make(map[string]string, len(c.files))
	for k, v := range c.files {
		out[k] = v
	}
	return sha, out, nil
}

// CollectGarbage drops repo's commits that no branch and no pull request's
// head (open or closed) reaches any more, as GitHub's garbage collection
// does some time after a force push; it returns how many it dropped. A
// dropped commit can no longer be fetched, compared or read.
func (s *Sim) CollectGarbage(repoName string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	var tips []string
	for _, sha := range r.branches {
		tips = append(tips, sha)
	}
	for _, p := range s.pulls {
		if p.repo == r.fullName() {
			tips = append(tips, p.headSHA)
		}
	}
	reached := map[string]bool{}
	for len(tips) > 0 {
		sha := tips[len(tips)-1]
		tips = tips[:len(tips)-1]
		c := r.commits[sha]
		if c == nil || reached[sha] {
			continue
		}
		reached[sha] = true
		tips = append(tips, c.parents...)
	}
	n := 0
	for sha := range r.commits {
		if !reached[sha] {
			delete(r.commits, sha)
			n++
		}
	}
	return n
}
