package job

import (
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// filterPaths splits files into those kept and those dropped by path_filters
// (doublestar globs; a glob without a slash also matches a file's base name).
func filterPaths(files, filters []string) (kept, dropped []string) {
	for _, f := range files {
		drop := false
		for _, g := range filters {
			if reviewerconfig.MatchGlob(g, f, true) {
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
