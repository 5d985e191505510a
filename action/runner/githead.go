package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// GitHead checks that the Git checkout in dir is at sha. It reads .git
// itself (HEAD, loose refs, packed-refs, a .git file pointing elsewhere) and
// falls back to `git rev-parse HEAD` when git is installed.
func GitHead(dir, sha string) error {
	head, err := readHead(dir)
	if err != nil {
		if _, lerr := exec.LookPath("git"); lerr == nil {
			out, gerr := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
			if gerr == nil {
				head, err = strings.TrimSpace(string(out)), nil
			}
		}
	}
	if err != nil {
		return fmt.Errorf("read the checkout's HEAD: %w", err)
	}
	if !strings.EqualFold(head, sha) {
		return fmt.Errorf("checkout is at %s, the job is for %s", head, sha)
	}
	return nil
}

func readHead(dir string) (string, error) {
	gitDir := filepath.Join(dir, ".git")
	st, err := os.Stat(gitDir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return "", err
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok {
			return "", errors.New(".git file without gitdir")
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		gitDir = p
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	head := strings.TrimSpace(string(b))
	for range 5 { // symbolic refs may chain
		ref, ok := strings.CutPrefix(head, "ref: ")
		if !ok {
			break
		}
		head, err = resolveRef(gitDir, strings.TrimSpace(ref))
		if err != nil {
			return "", err
		}
	}
	if !shaRE.MatchString(head) {
		return "", fmt.Errorf("HEAD is %q, not a commit id", head)
	}
	return head, nil
}

func resolveRef(gitDir, ref string) (string, error) {
	if strings.Contains(ref, "..") {
		return "", errors.New("bad ref")
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	f, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return "", fmt.Errorf("ref %s not found", ref)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha, nil
		}
	}
	return "", fmt.Errorf("ref %s not found", ref)
}
