package ghsim

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// CreateRepo creates owner/name (private) with one commit holding files on
// branch main, and returns the commit's sha. The owner is created as an
// organization if unknown.
func (s *Sim) CreateRepo(owner, name string, files map[string]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureAccount(owner, "Organization")
	key := strings.ToLower(owner + "/" + name)
	if s.repos[key] != nil {
		panic("ghsim: repo exists: " + key)
	}
	r := &repo{id: s.id(), owner: s.accounts[strings.ToLower(owner)].login, name: name, private: true, defaultBranch: "main",
		branches: map[string]string{}, commits: map[string]*commit{}, perms: map[string]string{}, labels: map[string]int64{},
		created: s.now(), pushed: s.now()}
	s.repos[key] = r
	c := s.newCommit(r, nil, map[string]string{}, files, "Initial commit", "")
	r.branches["main"] = c.sha
	return c.sha
}

// SetPublic makes repo public (repos start private).
func (s *Sim) SetPublic(repoName string, public bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepo(repoName).private = !public
}

// SetDefaultBranch changes the default branch (which must exist).
func (s *Sim) SetDefaultBranch(repoName, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	if _, ok := r.branches[branch]; !ok {
		panic("ghsim: no branch " + branch)
	}
	r.defaultBranch = branch
}

// RepoID returns the numeric id of repo.
func (s *Sim) RepoID(repoName string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mustRepo(repoName).id
}

// CreateBranch creates branch from ref (a branch name or sha) and returns its sha.
func (s *Sim) CreateBranch(repoName, branch, from string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	sha := s.resolve(r, from)
	if sha == "" {
		panic("ghsim: unknown ref " + from)
	}
	r.branches[branch] = sha
	return sha
}

// BranchSHA returns the head sha of branch ("" if none).
func (s *Sim) BranchSHA(repoName, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mustRepo(repoName).branches[branch]
}

// Commit adds a commit on branch (created from the default branch if new)
// that applies files (an "" value deletes the path), sends the push webhook
// and the synchronize webhook of open PRs whose head is branch, and returns
// the new sha.
func (s *Sim) Commit(repoName, branch string, files map[string]string, msg string) string {
	return s.push(repoName, branch, files, msg, false)
}

// ForcePush replaces branch's head by a commit that does not descend from
// it: its parent is the old head's parent, and its tree is the old head's
// tree with files applied (an amend). Returns the new sha.
func (s *Sim) ForcePush(repoName, branch string, files map[string]string) string {
	return s.push(repoName, branch, files, "Rewritten commit", true)
}

// FileAt returns the content of path at ref (branch or sha).
func (s *Sim) FileAt(repoName, ref, path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	c := r.commits[s.resolve(r, ref)]
	if c == nil {
		return "", false
	}
	v, ok := c.files[path]
	return v, ok
}

// Files returns every file of repo at ref (branch or sha), e.g. for a
// simulated runner's checkout. nil if ref is unknown.
func (s *Sim) Files(repoName, ref string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(repoName)
	c := r.commits[s.resolve(r, ref)]
	if c == nil {
		return nil
	}
	out := make(map[string]string, len(c.files))
	for k, v := range c.files {
		out[k] = v
	}
	return out
}

func (s *Sim) push(repoName, branch string, files map[string]string, msg string, force bool) string {
	s.mu.Lock()
	r := s.mustRepo(repoName)
	old, exists := r.branches[branch]
	if !exists {
		old = r.branches[r.defaultBranch]
	}
	oldC := r.commits[old]
	var parents []string
	base := oldC.files
	if force {
		if len(oldC.parents) > 0 {
			parents = []string{oldC.parents[0]}
		}
	} else {
		parents = []string{old}
	}
	c := s.newCommit(r, parents, base, files, msg, "")
	before := old
	if !exists {
		before = strings.Repeat("0", 40)
	}
	s.advance(r, branch, before, c, force, !exists)
	s.mu.Unlock()
	s.flush()
	return c.sha
}

// advance moves branch to c, as a push does: it sends push (from before)
// and the synchronize of open PRs whose head is branch. Caller holds s.mu.
func (s *Sim) advance(r *repo, branch, before string, c *commit, forced, created bool) {
	r.branches[branch] = c.sha
	r.pushed = s.now()
	s.emitPush(r, branch, before, c, forced, created)
	for _, p := range s.sortedPulls(r) {
		if p.state == "open" && p.headRef == branch {
			s.pullMoved(r, p, before, c.sha)
		}
	}
}

func (s *Sim) newCommit(r *repo, parents []string, base, changes map[string]string, msg, author string) *commit {
	files := make(map[string]string, len(base)+len(changes))
	for k, v := range base {
		files[k] = v
	}
	for k, v := range changes {
		if v == "" {
			delete(files, k)
		} else {
			files[k] = v
		}
	}
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%v\x00%s\x00%d", r.fullName(), parents, msg, s.id())
	shas, _ := trees(files)
	h.Write([]byte(shas[""]))
	c := &commit{sha: hex.EncodeToString(h.Sum(nil)), parents: parents, files: files, message: msg, author: author, at: s.now()}
	r.commits[c.sha] = c
	return c
}

func (s *Sim) mustRepo(name string) *repo {
	r := s.repos[strings.ToLower(name)]
	if r == nil {
		panic("ghsim: no repo " + name)
	}
	return r
}

// resolve turns a branch name, "refs/heads/x", "heads/x", a full sha or a
// unique sha prefix (7+) into a sha; "" if unknown.
func (s *Sim) resolve(r *repo, ref string) string {
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/"), "heads/")
	if sha, ok := r.branches[ref]; ok {
		return sha
	}
	if _, ok := r.commits[ref]; ok {
		return ref
	}
	if len(ref) >= 7 {
		found := ""
		for sha := range r.commits {
			if strings.HasPrefix(sha, ref) {
				if found != "" {
					return ""
				}
				found = sha
			}
		}
		return found
	}
	return ""
}

// ancestors returns every commit reachable from sha with its distance.
func ancestors(r *repo, sha string) map[string]int {
	out := map[string]int{}
	queue := []string{sha}
	out[sha] = 0
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		c := r.commits[cur]
		if c == nil {
			continue
		}
		for _, p := range c.parents {
			if _, ok := out[p]; !ok {
				out[p] = out[cur] + 1
				queue = append(queue, p)
			}
		}
	}
	return out
}

// mergeBase is the nearest common ancestor of a and b ("" if none).
func mergeBase(r *repo, a, b string) string {
	aa := ancestors(r, a)
	bb := ancestors(r, b)
	best, bestD := "", -1
	for sha, d := range bb {
		if _, ok := aa[sha]; ok && (bestD < 0 || d < bestD || d == bestD && sha < best) {
			best, bestD = sha, d
		}
	}
	return best
}

// commitsBetween lists commits reachable from head but not from base, oldest first.
func commitsBetween(r *repo, base, head string) []*commit {
	excl := ancestors(r, base)
	if base == "" {
		excl = map[string]int{}
	}
	inc := ancestors(r, head)
	var out []*commit
	for sha := range inc {
		if _, ok := excl[sha]; !ok {
			out = append(out, r.commits[sha])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return inc[out[i].sha] > inc[out[j].sha]
	})
	return out
}
