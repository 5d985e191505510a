package models

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// Source gives the catalogue in force: the built-in one, with the
// operator's file (CHAKSHU_MODEL_CATALOG) merged over it. The file is
// stat'ed on every use and read again when its modification time or size
// changed, so an edit takes effect without a restart. A file that cannot be
// read or parsed leaves the last good catalogue in force and is reported.
type Source struct {
	path    string
	builtin *Catalog

	mu      sync.Mutex
	modTime time.Time
	size    int64
	cat     *Catalog
	err     error
}

// NewSource reads path (empty: the built-in catalogue only). A bad file at
// start is an error, so a typo does not go unnoticed.
func NewSource(path string) (*Source, error) {
	return NewSourceOver(Builtin(), path)
}

// NewSourceOver is NewSource with base in place of the built-in catalogue
// (the sandbox adds its simulated providers' routes to it).
func NewSourceOver(base *Catalog, path string) (*Source, error) {
	s := &Source{path: path, builtin: base}
	s.cat = s.builtin
	if path == "" {
		return s, nil
	}
	if _, err := s.Catalog(); err != nil {
		return nil, err
	}
	return s, nil
}

// Static is a Source of one fixed catalogue (tests, tools).
func Static(c *Catalog) *Source { return &Source{builtin: c, cat: c} }

// Catalog returns the catalogue in force and, when the operator's file
// changed but could not be used, why (the previous catalogue stays in force).
func (s *Source) Catalog() (*Catalog, error) {
	if s == nil {
		return Builtin(), nil
	}
	if s.path == "" {
		return s.cat, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(s.path)
	if err != nil {
		s.err = fmt.Errorf("%s: %w", Setting, err)
		return s.cat, s.err
	}
	if fi.ModTime().Equal(s.modTime) && fi.Size() == s.size {
		return s.cat, s.err
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		s.err = fmt.Errorf("%s: %w", Setting, err)
		return s.cat, s.err
	}
	over, err := Parse(b, s.path+" ("+Setting+")")
	if err != nil {
		s.err = err
		s.modTime, s.size = fi.ModTime(), fi.Size()
		return s.cat, s.err
	}
	s.cat = s.builtin.Merge(over)
	s.modTime, s.size, s.err = fi.ModTime(), fi.Size(), nil
	return s.cat, nil
}
