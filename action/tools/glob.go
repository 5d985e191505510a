package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Limits of the Glob tool.
const GlobMaxResults = 1000

// GlobInput is the Glob tool's input.
type GlobInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

const globSchema = `{"type":"object","properties":{
"pattern":{"type":"string","description":"Glob pattern with ** for any depth, e.g. \"**/*.go\" or \"src/**/*.{ts,tsx}\"."},
"path":{"type":"string","description":"Directory to search in, relative to the repository root (default: the root)."}},
"required":["pattern"],"additionalProperties":false}`

// GlobContext lists files matching a doublestar pattern, sorted, capped,
// stopping with ctx's error when ctx is done. Symlinked directories are not
// followed; symlinks to files inside are listed.
func (f *FS) GlobContext(ctx context.Context, in GlobInput) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if in.Pattern == "" {
		return "", errors.New("pattern is required")
	}
	pat, err := CleanRel(in.Pattern)
	if err != nil {
		return "", fmt.Errorf("pattern: %w", err)
	}
	if strings.HasSuffix(in.Pattern, "/") {
		pat += "/"
	}
	if !doublestar.ValidatePattern(pat) {
		return "", fmt.Errorf("pattern: %q is not a valid glob", in.Pattern)
	}
	base := "."
	if in.Path != "" {
		_, real, err := f.Resolve(in.Path)
		if err != nil {
			return "", err
		}
		base = f.relOf(real)
	}
	var out []string
	err = f.walkAll(ctx, base, func(rel string, symlink bool) {
		p := rel
		if base != "." {
			p = strings.TrimPrefix(rel, base+"/")
		}
		if ok, _ := doublestar.Match(pat, p); !ok {
			return
		}
		if symlink {
			// Listed only if it resolves to a file inside the workspace.
			_, real, err := f.Resolve(rel)
			if err != nil {
				return
			}
			if st, err := os.Stat(real); err != nil || st.IsDir() {
				return
			}
		}
		out = append(out, rel)
	})
	if err != nil {
		return "", fmt.Errorf("glob failed: %v", err)
	}
	total := len(out)
	if total == 0 {
		return "No files matched.\n", nil
	}
	slices.Sort(out)
	out = out[:min(total, GlobMaxResults)]
	var b strings.Builder
	for _, p := range out {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	if total > len(out) {
		fmt.Fprintf(&b, "(%d files matched; showing %d — narrow the pattern)\n", total, len(out))
	} else {
		fmt.Fprintf(&b, "(%d files)\n", total)
	}
	return b.String(), nil
}
