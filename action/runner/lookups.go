package runner

import (
	"slices"

	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

// BaseSuffix marks, in a review's checked files, a file the agent read as it
// was before the change (ReadBase), so the review's "What was checked" shows
// that lookup beside the files it read at the head.
const BaseSuffix = " (before the change)"

// noteLookups adds to the result's checked files the base versions the
// agent read with ReadBase and did not list itself. The Actions log already
// shows every call; this is what the posted review shows.
func noteLookups(res *findings.Result, set *tools.Set) {
	for _, b := range set.BasesRead() {
		if e := b + BaseSuffix; !slices.Contains(res.Checked.Files, e) {
			res.Checked.Files = append(res.Checked.Files, e)
		}
	}
}
