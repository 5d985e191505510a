package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// initreviewers is the reviewers repository `chakshu init reviewers` writes:
// a README for the team that owns it and two production reviewers, security
// and correctness (their models are checked against the model catalogue by
// TestInitReviewers).
//
//go:embed all:initreviewers
var initReviewers embed.FS

const initUsage = `Usage: chakshu init reviewers DIR

Writes a reviewers repository to start from into DIR (new, or empty): a README
for the team that owns it, and reviewers/security and reviewers/correctness
(rules, a skill, settings with current models and caps, automatic on opened,
ready and pushed pull requests). Commit it as <org>/chakshu-reviewers and
install the App on it (docs/reviewers.md).`

func initCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, initUsage)
		return nil
	}
	if len(args) != 2 || args[0] != "reviewers" {
		fmt.Fprintln(stderr, initUsage)
		return errUsage
	}
	dir := args[1]
	if err := writeReviewersRepo(dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Wrote a reviewers repository to %s (README.md, reviewers/security, reviewers/correctness).\nCommit it as <org>/chakshu-reviewers and install the App on it.\n", dir)
	return nil
}

// writeReviewersRepo copies initReviewers into dir, which must not exist or
// be empty: nothing is overwritten.
func writeReviewersRepo(dir string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("init reviewers: %s is not empty; give a new or empty folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("init reviewers: %w", err)
	}
	src, err := fs.Sub(initReviewers, "initreviewers")
	if err != nil {
		return err
	}
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return fmt.Errorf("init reviewers: %w", err)
		}
		return nil
	})
}
