// Package publish turns a run's result into what Chakshu posts on GitHub
// (DESIGN §2.9–§2.11, §5, §6): one review per review run with inline comments
// where the diff allows them, the tidy of outdated Chakshu threads, the check
// run's completion, and the answer of a reply run. Every step is idempotent:
// hidden markers in what was posted let a retry after a crash find it.
package publish

import (
	"cmp"
	"slices"

	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Placement of a finding.
type Placement string

// Placements (the values of the Finding row's placement).
const (
	PlaceInline Placement = "inline"
	PlaceBody   Placement = "body"
	PlaceNone   Placement = "none"
)

// Why a finding was not posted (the Finding row's dropped_reason).
const (
	DropBelowMin    = "below min_severity"
	DropOverMax     = "over max_findings"
	DropOnPR        = "already on the PR"
	DropDuplicate   = "duplicate in this run"
	DropNotOnGitHub = "not found in the posted review"
)

// Item is one finding of a run and what publishing does with it.
type Item struct {
	findings.Finding
	HiddenID  string
	Placement Placement
	// Dropped says why Placement is none.
	Dropped string
}

// Posted reports whether the item goes out in this run's review.
func (it *Item) Posted() bool { return it.Placement == PlaceInline || it.Placement == PlaceBody }

// Rules are the reviewer's publishing settings.
type Rules struct {
	MinSeverity findings.Severity
	// MaxFindings caps posted findings; 0 or less means no cap.
	MaxFindings int
	// CategoryMin raises the floor of some categories above MinSeverity
	// (demote_below_acceptance: reviewerconfig.Config.Demotions).
	CategoryMin map[string]findings.Severity
}

// floor is the severity a finding of category must reach to be posted.
func (r Rules) floor(category string) findings.Severity {
	min := r.MinSeverity
	if !min.Valid() {
		min = findings.Nit
	}
	if m, ok := r.CategoryMin[category]; ok && m.Valid() && m.Rank() < min.Rank() {
		return m
	}
	return min
}

// Plan is what one run posts.
type Plan struct {
	// Items are all findings of the run, most severe first, then by path and line.
	Items []Item
	// BelowMin, OnPR and LeftOut count findings not posted for each reason.
	BelowMin, OnPR, LeftOut int
}

// Inline returns the items that go out as inline comments.
func (p *Plan) Inline() []*Item { return p.with(PlaceInline) }

// Body returns the items that go in the review body.
func (p *Plan) Body() []*Item { return p.with(PlaceBody) }

// Posted returns the items that go out, inline or in the body.
func (p *Plan) Posted() []*Item {
	var out []*Item
	for i := range p.Items {
		if p.Items[i].Posted() {
			out = append(out, &p.Items[i])
		}
	}
	return out
}

func (p *Plan) with(pl Placement) []*Item {
	var out []*Item
	for i := range p.Items {
		if p.Items[i].Placement == pl {
			out = append(out, &p.Items[i])
		}
	}
	return out
}

// OnPR is what earlier runs left on the PR.
type OnPR struct {
	// IDs are the hidden IDs already posted on the PR (database rows and
	// the markers of Chakshu's reviews and threads).
	IDs map[string]bool
	// Open are the earlier runs' posted findings whose thread is still
	// open (or that went in a review body), as stored: a finding of this
	// run that is the same (findings.Same) as one of them is not posted
	// again, however a model reworded or moved it.
	Open []Earlier
}

// Earlier is a finding an earlier run posted, with the hidden ID its row
// and thread carry.
type Earlier struct {
	HiddenID string
	findings.Finding
}

// MakePlan filters, orders, caps and places findings. onPR holds hidden IDs
// already posted on the PR by earlier runs. A finding goes inline when the
// PR touches its path and its lines are commentable in the diff; otherwise
// it goes in the body under "Outside the changed lines".
func MakePlan(fs []findings.Finding, rules Rules, onPR map[string]bool, diff *diffmap.Map) Plan {
	return PlanOn(fs, rules, OnPR{IDs: onPR}, diff)
}

// PlanOn is MakePlan against what earlier runs left on the PR. Findings
// are matched by findings.Same: one of this run that is the same as an
// earlier one of this run is a duplicate; one that is the same as an open
// earlier finding is already on the PR and takes that finding's hidden ID,
// the marker that ties it to its thread (tidying and outcomes then see the
// thread's finding reported again).
func PlanOn(fs []findings.Finding, rules Rules, onPR OnPR, diff *diffmap.Map) Plan {
	p := Plan{Items: make([]Item, 0, len(fs))}
	for _, f := range fs {
		if f.Side == "" {
			f.Side = diffmap.Right
		}
		p.Items = append(p.Items, Item{Finding: f, HiddenID: f.ID(), Placement: PlaceNone})
	}
	slices.SortStableFunc(p.Items, func(a, b Item) int {
		return cmp.Or(
			cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.StartLine, b.StartLine),
			cmp.Compare(a.HiddenID, b.HiddenID),
		)
	})
	seen := map[string]bool{}
	posted := 0
	for i := range p.Items {
		it := &p.Items[i]
		if !onPR.IDs[it.HiddenID] && !onPR.has(it.HiddenID) {
			for j := range onPR.Open {
				if findings.Same(&it.Finding, &onPR.Open[j].Finding) {
					it.HiddenID = onPR.Open[j].HiddenID
					break
				}
			}
		}
		switch {
		case seen[it.HiddenID] || sameAsEarlier(p.Items[:i], it):
			it.Dropped = DropDuplicate
		case !it.Severity.AtLeast(rules.floor(it.Category)):
			it.Dropped = DropBelowMin
			p.BelowMin++
		case onPR.IDs[it.HiddenID] || onPR.has(it.HiddenID):
			it.Dropped = DropOnPR
			p.OnPR++
		case rules.MaxFindings > 0 && posted >= rules.MaxFindings:
			it.Dropped = DropOverMax
			p.LeftOut++
		case diff != nil && diff.Commentable(it.Path, it.Side, it.StartLine, it.Line):
			it.Placement = PlaceInline
			posted++
		default:
			it.Placement = PlaceBody
			posted++
		}
		seen[it.HiddenID] = true
	}
	return p
}

// reported are the hidden IDs of the plan's findings (posted or not): the
// findings this run reported, under the IDs of the threads they match.
func (p *Plan) reported() map[string]bool {
	out := make(map[string]bool, len(p.Items))
	for i := range p.Items {
		out[p.Items[i].HiddenID] = true
	}
	return out
}

// sameAsEarlier reports whether it is the same finding as one of earlier
// (not dropped as a duplicate itself).
func sameAsEarlier(earlier []Item, it *Item) bool {
	for i := range earlier {
		if earlier[i].Dropped != DropDuplicate && findings.Same(&earlier[i].Finding, &it.Finding) {
			return true
		}
	}
	return false
}

// has reports whether id is the hidden ID of one of the open findings.
func (o OnPR) has(id string) bool {
	for i := range o.Open {
		if o.Open[i].HiddenID == id {
			return true
		}
	}
	return false
}

// demote moves inline items to the body: those the diff cannot carry, or
// every inline item when the diff accepts them all (GitHub refused the review
// for a reason the map cannot see). It reports how many moved.
func (p *Plan) demote(diff *diffmap.Map) int {
	var bad []*Item
	inline := p.Inline()
	for _, it := range inline {
		if diff == nil || !diff.Commentable(it.Path, it.Side, it.StartLine, it.Line) {
			bad = append(bad, it)
		}
	}
	if len(bad) == 0 {
		bad = inline
	}
	for _, it := range bad {
		it.Placement = PlaceBody
	}
	return len(bad)
}
