package runnerapi

import (
	"context"
	"fmt"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// maxLearnings caps the learnings put in one prompt.
const maxLearnings = 30

// selectLearnings returns the enabled learnings of the repository (or its
// whole installation) whose glob matches one of files; an empty glob matches
// every file. Replaced by internal/learnings.Select once that lands.
func selectLearnings(ctx context.Context, db *ent.Client, instID, repoID int, files []string) ([]runnerproto.Learning, error) {
	rows, err := db.ReviewLearning.Query().Where(
		reviewlearning.Enabled(true),
		reviewlearning.HasInstallationWith(installation.ID(instID)),
		reviewlearning.Or(
			reviewlearning.ScopeEQ(reviewlearning.ScopeInstallation),
			reviewlearning.HasRepositoryWith(repository.ID(repoID)),
		),
	).Order(ent.Asc(reviewlearning.FieldID)).Limit(500).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("select learnings: %w", err)
	}
	var out []runnerproto.Learning
	for _, l := range rows {
		if !globMatchesAny(l.Glob, files) {
			continue
		}
		out = append(out, runnerproto.Learning{ID: l.ID, Glob: l.Glob, Directive: l.Directive})
		if len(out) == maxLearnings {
			break
		}
	}
	return out, nil
}

func globMatchesAny(glob string, files []string) bool {
	if glob == "" {
		return true
	}
	for _, f := range files {
		if ok, _ := doublestar.Match(glob, f); ok {
			return true
		}
	}
	return false
}

// markLearningsUsed bumps use_count of the learnings a job carried.
func markLearningsUsed(ctx context.Context, db *ent.Client, ls []runnerproto.Learning) error {
	if len(ls) == 0 {
		return nil
	}
	ids := make([]int, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return db.ReviewLearning.Update().Where(reviewlearning.IDIn(ids...)).
		AddUseCount(1).SetLastUsedAt(time.Now()).Exec(ctx)
}

// filterPaths splits files into those kept and those dropped by path_filters.
func filterPaths(files, filters []string) (kept, dropped []string) {
	for _, f := range files {
		drop := false
		for _, g := range filters {
			if ok, _ := doublestar.Match(g, f); ok {
				drop = true
				break
			}
		}
		if drop {
			dropped = append(dropped, f)
		} else {
			kept = append(kept, f)
		}
	}
	return kept, dropped
}
