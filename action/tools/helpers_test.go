package tools

import "context"

// Glob is GlobContext without a deadline.
func (f *FS) Glob(in GlobInput) (string, error) { return f.GlobContext(context.Background(), in) }

// Grep is GrepContext without a deadline.
func (f *FS) Grep(in GrepInput) (string, error) { return f.GrepContext(context.Background(), in) }

// Dir is the workspace root's real path.
func (f *FS) Dir() string { return f.dir }
