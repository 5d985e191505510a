// Package tools implements the review agent's tools: Read, Grep, Glob and
// Skill over the sanitised workspace, the reviewer's connector tools (proxied
// to Chakshu), and the submit tool. Every path is resolved inside the
// workspace; nothing here writes, executes or reaches any host but Chakshu.
package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// FS is a read-only view of the workspace. Paths given to it are relative to
// the workspace root; absolute paths, ".." segments and symlinks that leave
// the root are refused, and files are opened through an os.Root so a swap
// between the check and the open cannot escape either.
type FS struct {
	dir     string // real (symlink-free) absolute path of the root
	root    *os.Root
	beneath beneath // fast race-free opens for the Grep walk (Linux)
}

// ErrOutside is returned for any path that is not inside the workspace.
var ErrOutside = errors.New("path is outside the workspace")

// OpenFS opens dir as the workspace root.
func OpenFS(dir string) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace path: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace path: %w", err)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	b, err := openBeneathRoot(real)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &FS{dir: real, root: r, beneath: b}, nil
}

// Close releases the root.
func (f *FS) Close() error {
	f.beneath.close()
	return f.root.Close()
}

// CleanRel checks a path the model gave and returns it cleaned, relative to
// the root ("." for the root itself). It does not touch the file system.
func CleanRel(p string) (string, error) {
	switch {
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("%w: the path contains a NUL byte", ErrOutside)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", fmt.Errorf("%w: absolute paths are not allowed; give a path relative to the repository root", ErrOutside)
	case strings.HasPrefix(p, "~"):
		return "", fmt.Errorf("%w: home-relative paths are not allowed", ErrOutside)
	}
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "", fmt.Errorf("%w: \"..\" is not allowed", ErrOutside)
		}
	}
	if p == "" {
		return ".", nil
	}
	// p is relative and has no "..", so Clean keeps it relative and below
	// the root ("./a//b/" → "a/b", ".//" → ".").
	return path.Clean(p), nil
}

// Resolve turns a model-given path into its real absolute path inside the
// workspace and its cleaned relative form. Symlinks are followed only while
// they stay inside.
func (f *FS) Resolve(p string) (rel, abs string, err error) {
	rel, err = CleanRel(p)
	if err != nil {
		return "", "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(f.dir, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("%s: no such file or directory", rel)
		}
		return "", "", fmt.Errorf("%s: cannot resolve the path", rel)
	}
	if !f.inside(real) {
		return "", "", fmt.Errorf("%w: %s points outside it", ErrOutside, rel)
	}
	return rel, real, nil
}

func (f *FS) inside(real string) bool {
	return real == f.dir || strings.HasPrefix(real, f.dir+string(filepath.Separator))
}

// relOf returns real's path relative to the root, in slash form.
func (f *FS) relOf(real string) string {
	if real == f.dir {
		return "."
	}
	return filepath.ToSlash(strings.TrimPrefix(real, f.dir+string(filepath.Separator)))
}

// Open resolves p and opens it for reading through the root.
func (f *FS) Open(p string) (*os.File, string, error) {
	rel, real, err := f.Resolve(p)
	if err != nil {
		return nil, "", err
	}
	file, err := f.root.Open(filepath.FromSlash(f.relOf(real)))
	if err != nil {
		return nil, "", fmt.Errorf("%s: cannot open the file", rel)
	}
	return file, rel, nil
}
