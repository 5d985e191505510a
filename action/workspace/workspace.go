// Package workspace builds the directory the review agent reads: a copy of
// the pull request's checkout with every agent-instruction file, the Git
// directory and escaping symlinks removed (DESIGN §2.6, §8), then the
// reviewer's own rules and skills written in.
package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// Config says what to build.
type Config struct {
	// Checkout is the pull request's checkout (read only).
	Checkout string
	// Dir is the workspace to create; it must not exist or be empty.
	Dir string
	// Rules is the reviewer's CLAUDE.md.
	Rules string
	// Skills are written to .claude/skills/<name>/.
	Skills []runnerproto.Skill
}

// Report says what the sanitiser removed, for the Actions log.
type Report struct {
	// Removed lists checkout paths left out of the workspace, with why.
	Removed []Removal
	// Files is the number of files copied.
	Files int
}

// Removal is one path left out.
type Removal struct {
	Path   string
	Reason string
}

// removedNames are agent-instruction files and directories a pull request
// could use to steer the reviewer; removed at any depth (case-insensitively,
// as some tools read them on case-insensitive file systems).
var removedNames = []string{"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".claude", ".mcp.json", ".git"}

func removedName(name string) bool {
	for _, n := range removedNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

var skillNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// ValidSkillName reports whether a skill name is safe as one directory name.
func ValidSkillName(name string) bool {
	return skillNameRE.MatchString(name) && !strings.Contains(name, "..")
}

// ValidRelPath reports whether p is a safe relative file path: no absolute
// path, no "..", no empty or "." segments, no NUL or backslash.
func ValidRelPath(p string) bool {
	if p == "" || len(p) > 1000 || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\x00\\") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// Build creates the workspace.
func Build(cfg Config) (*Report, error) {
	for _, sk := range cfg.Skills {
		if !ValidSkillName(sk.Name) {
			return nil, fmt.Errorf("skill name %q is not allowed", sk.Name)
		}
		for p := range sk.Files {
			if !ValidRelPath(p) || p == "SKILL.md" {
				return nil, fmt.Errorf("skill %s: file path %q is not allowed", sk.Name, p)
			}
		}
	}
	src, err := filepath.EvalSymlinks(cfg.Checkout)
	if err != nil {
		return nil, fmt.Errorf("checkout: %w", err)
	}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil, errors.New("checkout is not a directory")
	}
	if ents, err := os.ReadDir(cfg.Dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("workspace %s is not empty", cfg.Dir)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	dst, err := filepath.EvalSymlinks(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if inside(src, dst) || inside(dst, src) {
		return nil, errors.New("workspace and checkout must not contain each other")
	}
	rep := &Report{}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read checkout: %w", err)
		}
		if p == src {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		relSlash := filepath.ToSlash(rel)
		if removedName(d.Name()) {
			rep.Removed = append(rep.Removed, Removal{relSlash, "agent instructions or Git data"})
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.Mkdir(target, 0o755)
		case t&fs.ModeSymlink != 0:
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				rep.Removed = append(rep.Removed, Removal{relSlash, "symlink that does not resolve"})
				return nil
			}
			if !inside(src, real) {
				rep.Removed = append(rep.Removed, Removal{relSlash, "symlink pointing outside the checkout"})
				return nil
			}
			// Re-point it relative to the workspace, so an absolute target
			// inside the checkout does not lead back into the checkout.
			realRel, _ := filepath.Rel(src, real)
			for _, seg := range strings.Split(filepath.ToSlash(realRel), "/") {
				if removedName(seg) {
					rep.Removed = append(rep.Removed, Removal{relSlash, "symlink to removed agent instructions or Git data"})
					return nil
				}
			}
			link, err := filepath.Rel(filepath.Dir(target), filepath.Join(dst, realRel))
			if err != nil {
				return fmt.Errorf("symlink %s: %w", relSlash, err)
			}
			return os.Symlink(link, target)
		case t.IsRegular():
			rep.Files++
			return copyFile(p, target)
		default:
			rep.Removed = append(rep.Removed, Removal{relSlash, "not a regular file"})
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Rules) != "" {
		if err := os.WriteFile(filepath.Join(dst, "CLAUDE.md"), []byte(cfg.Rules), 0o644); err != nil {
			return nil, fmt.Errorf("write rules: %w", err)
		}
	}
	for _, sk := range cfg.Skills {
		dir := filepath.Join(dst, ".claude", "skills", sk.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("skill %s: %w", sk.Name, err)
		}
		for p, content := range sk.Files {
			f := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				return nil, fmt.Errorf("skill %s: %w", sk.Name, err)
			}
			if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
				return nil, fmt.Errorf("skill %s: %w", sk.Name, err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(sk.Content), 0o644); err != nil {
			return nil, fmt.Errorf("skill %s: %w", sk.Name, err)
		}
	}
	return rep, nil
}

// inside reports whether p is root or below it (both real paths).
func inside(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	mode := os.FileMode(0o644)
	if st.Mode()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return out.Close()
}
