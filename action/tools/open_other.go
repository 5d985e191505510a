//go:build !linux

package tools

import "os"

type beneath struct{}

func openBeneathRoot(string) (beneath, error) { return beneath{}, nil }

func (beneath) close() {}

// openNoSymlinks opens rel below the root through the os.Root.
func (f *FS) openNoSymlinks(rel string) (*os.File, error) { return f.root.Open(rel) }
