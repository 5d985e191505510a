// Package runnerbin finds the chakshu-action binaries this Chakshu serves to
// its workflows (DESIGN §2 step 5): one per platform, of the server's own
// version, built by scripts/runners.sh (`make build`, deploy/Dockerfile) into
// a folder beside the chakshu binary, or CHAKSHU_RUNNER_DIR.
//
// They are read from a folder rather than embedded: `go build`, `go vet` and
// `go test ./...` work on a clean checkout with nothing built first (go:embed
// of a file the build has not made yet fails to compile), the chakshu binary
// stays its own size, and the files are served straight from disk (the gzip
// copy scripts/runners.sh makes) without holding 20 MB of binaries in memory.
package runnerbin

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Platform is a GOOS/GOARCH pair.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Platforms are the platforms Chakshu builds and serves the runner for: the
// Linux runners GitHub hosts (X64 and ARM64).
var Platforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}}

// Supported reports whether p is one of Platforms.
func Supported(p Platform) bool { return slices.Contains(Platforms, p) }

// FileName is the binary's name in the folder: the version is in the name, so
// a folder left from another version serves nothing rather than the wrong
// runner.
func FileName(version string, p Platform) string {
	return "chakshu-action-" + version + "-" + p.OS + "-" + p.Arch
}

// DefaultDir is the folder `make build` and the container image put the
// binaries in: runner/ beside the running executable.
func DefaultDir() string {
	exe, err := os.Executable()
	if err != nil {
		return "runner"
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), "runner")
}

// Binary is one servable runner.
type Binary struct {
	Platform Platform
	// Path is the uncompressed binary; SHA256 (hex) and Size describe it.
	Path   string
	SHA256 string
	Size   int64
	// GzPath is its gzip copy, "" when there is none (or it does not
	// decompress to the same bytes); GzSize is its size.
	GzPath string
	GzSize int64
	// ModTime is the binary's modification time (for conditional requests).
	ModTime time.Time
}

// ErrMissing is returned (wrapped) when the folder has no binary of this
// version for a platform.
var ErrMissing = errors.New("runner binary missing")

// Store serves the binaries of one version from one folder. Digests are
// computed once per file (and again when the file changes).
type Store struct {
	dir, version string
	mu           sync.Mutex
	cache        map[Platform]*Binary
}

// New returns a store of version's binaries in dir ("" means DefaultDir).
func New(dir, version string) *Store {
	if dir == "" {
		dir = DefaultDir()
	}
	return &Store{dir: dir, version: version, cache: map[Platform]*Binary{}}
}

// Dir is the folder the store reads.
func (s *Store) Dir() string { return s.dir }

// Get returns p's binary, hashing it the first time (and after it changed).
func (s *Store) Get(p Platform) (*Binary, error) {
	if !Supported(p) {
		return nil, fmt.Errorf("runner for %s: not a supported platform", p)
	}
	path := filepath.Join(s.dir, FileName(s.version, p))
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: chakshu-action %s for %s: %v", ErrMissing, s.version, p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrMissing, path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.cache[p]; b != nil && b.Size == st.Size() && b.ModTime.Equal(st.ModTime()) {
		return b, nil
	}
	sum, n, err := digest(path, false)
	if err != nil {
		return nil, fmt.Errorf("runner for %s: %w", p, err)
	}
	b := &Binary{Platform: p, Path: path, SHA256: sum, Size: n, ModTime: st.ModTime()}
	if gz := path + ".gz"; fileExists(gz) {
		// The gzip copy is served as the same bytes: check that it is.
		if gsum, _, err := digest(gz, true); err == nil && gsum == sum {
			if gst, err := os.Stat(gz); err == nil {
				b.GzPath, b.GzSize = gz, gst.Size()
			}
		}
	}
	s.cache[p] = b
	return b, nil
}

// ChecksumLine is the .sha256 answer, in sha256sum's format, naming the file
// as the workflow saves it.
func ChecksumLine(sum string) string { return sum + "  chakshu-action\n" }

func digest(path string, gz bool) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return "", 0, err
		}
		defer zr.Close()
		r = zr
	}
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// ParsePlatform reads "linux/amd64"-style pairs (as path segments).
func ParsePlatform(goos, goarch string) Platform {
	return Platform{OS: strings.ToLower(goos), Arch: strings.ToLower(goarch)}
}
