package outcomes

import (
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
)

// Finding is an open posted finding as deciding needs it.
type Finding struct {
	ID       int
	HiddenID string
	// Reviewer is the id of the reviewer whose run posted it.
	Reviewer int
	// Head is the commit its run reviewed: its lines are that commit's.
	Head            string
	Path            string
	StartLine, Line int
	Side            string
	Suggestion      string
	// CommentID is its inline comment (its thread's root); 0 in the review body.
	CommentID int64
	// As is the finding as last reported (title, body, category, quote),
	// to match it by findings.Same; its zero value matches by hidden ID only.
	As findings.Finding
}

// Compare is what changed from Base to Head (GitHub's compare, status
// "ahead"): only findings whose Head is Base are judged by it.
type Compare struct {
	Base, Head string
	Files      []CompareFile
}

// CompareFile is one file of a compare.
type CompareFile struct {
	Path, PreviousPath, Status, Patch string
}

// Event is what the read is for.
type Event int

// Events.
const (
	// AtReview: a later review of the PR was published.
	AtReview Event = iota
	// AtMerge: the PR was merged.
	AtMerge
	// AtClose: the PR was closed without merging.
	AtClose
)

// Verdict is what a reply run decided about a finding, and who replied.
type Verdict struct {
	Verdict findings.Verdict
	By      string
}

// Facts are the GitHub facts one read gathered about a PR.
type Facts struct {
	Event Event
	// Threads of the PR; Compare may be nil.
	Threads []Thread
	Compare *Compare
	// Reviewer is whose later review this read follows (AtReview), and
	// Reported the hidden IDs that review reported and ReportedFindings
	// its findings: a finding whose hidden ID is not among them and that is
	// not the same (findings.Same) as one of them did not come back.
	Reviewer         int
	Reported         map[string]bool
	ReportedFindings []findings.Finding
	// Verdicts of reply runs by the root comment of the thread they answered.
	Verdicts map[int64]Verdict
	// IsChakshu tells Chakshu's own logins (REST "<slug>[bot]", GraphQL "<slug>").
	IsChakshu func(login string) bool
}

// Decision is a finding's outcome and the fact it rests on.
type Decision struct {
	FindingID int
	Outcome   finding.Outcome
	Reason    string
	// Said is the person's reply a dismissal rests on (empty when none):
	// untrusted text from the pull request, quoted by the learning the
	// dismissal proposes.
	Said string
}

// Decide decides what it can about each open finding. Precedence: a fix
// (its suggestion applied; or, after a later review of its reviewer, the
// lines under it changed and it did not come back), then a person
// dismissing it, then a person acknowledging it; a finding still open when
// the PR is merged or closed gets that outcome. Findings nothing decides are
// left out (they stay open and are read again).
func Decide(open []Finding, f Facts) []Decision {
	byRoot := map[int64]*Thread{}
	for i := range f.Threads {
		t := &f.Threads[i]
		if id := t.Root().ID; id != 0 {
			byRoot[id] = t
		}
	}
	var out []Decision
	for _, fd := range open {
		o, why, said := decide(fd, byRoot[fd.CommentID], f)
		if o != finding.OutcomeOpen {
			out = append(out, Decision{FindingID: fd.ID, Outcome: o, Reason: why, Said: said})
		}
	}
	return out
}

// reportedAgain says whether the later review reported fd again: by hidden
// ID, or as the same finding in other words or a line or two away.
func (f *Facts) reportedAgain(fd *Finding) bool {
	if f.Reported[fd.HiddenID] {
		return true
	}
	if fd.As.Path == "" {
		return false
	}
	for i := range f.ReportedFindings {
		if findings.Same(&fd.As, &f.ReportedFindings[i]) {
			return true
		}
	}
	return false
}

func decide(fd Finding, t *Thread, f Facts) (finding.Outcome, string, string) {
	o, why := decideWhy(fd, t, f)
	said := ""
	if o == finding.OutcomeDismissed && t != nil {
		// The newest reply of a person that says it is wrong (a reply run's
		// verdict rests on one too); else the newest reply of a person.
		person := func(c Comment) bool {
			return c.Author != "" && !c.AuthorBot && !strings.HasSuffix(strings.ToLower(c.Author), "[bot]") && (f.IsChakshu == nil || !f.IsChakshu(c.Author))
		}
		rs := t.Replies()
		for i := len(rs) - 1; i >= 0 && said == ""; i-- {
			if person(rs[i]) && Stance(rs[i].Body) == Wrong {
				said = rs[i].Body
			}
		}
		for i := len(rs) - 1; i >= 0 && said == ""; i-- {
			if person(rs[i]) {
				said = rs[i].Body
			}
		}
	}
	return o, why, said
}

func decideWhy(fd Finding, t *Thread, f Facts) (finding.Outcome, string) {
	ch := linesChanged(fd, f.Compare)
	if ch.known && ch.changed && ch.applied(fd.Suggestion) {
		return finding.OutcomeFixed, "its suggestion was applied in " + gh.ShortSHA(f.Compare.Head)
	}
	changed := ch.changed
	if !ch.known && t != nil {
		changed = t.IsOutdated // GitHub's own judgement of the lines under the thread
	}
	if f.Event == AtReview && fd.Reviewer == f.Reviewer && changed && !f.reportedAgain(&fd) {
		return finding.OutcomeFixed, ch.reason(fd, t) + "; not reported again"
	}
	person := func(login string, bot bool) bool {
		return login != "" && !bot && !strings.HasSuffix(strings.ToLower(login), "[bot]") && (f.IsChakshu == nil || !f.IsChakshu(login))
	}
	if t != nil {
		root := t.Root()
		if v, ok := f.Verdicts[root.ID]; ok && v.Verdict == findings.VerdictWrong {
			return finding.OutcomeDismissed, at(v.By) + " replied that it is wrong (the reviewer withdrew it)"
		}
		for _, who := range root.ThumbsDown {
			if person(who, false) {
				return finding.OutcomeDismissed, at(who) + " reacted 👎"
			}
		}
		for _, c := range t.Replies() {
			if person(c.Author, c.AuthorBot) && Stance(c.Body) == Wrong {
				return finding.OutcomeDismissed, at(c.Author) + " replied that it is wrong"
			}
		}
		if t.IsResolved && person(t.ResolvedBy, false) && !changed {
			return finding.OutcomeDismissed, "thread resolved by " + at(t.ResolvedBy) + " with no change under it"
		}
		for _, who := range root.ThumbsUp {
			if person(who, false) {
				return finding.OutcomeAcknowledged, at(who) + " reacted 👍"
			}
		}
		if v, ok := f.Verdicts[root.ID]; ok && v.Verdict == findings.VerdictFixed {
			return finding.OutcomeAcknowledged, at(v.By) + " replied that it is fixed"
		}
		for _, c := range t.Replies() {
			if person(c.Author, c.AuthorBot) && Stance(c.Body) == Agrees {
				return finding.OutcomeAcknowledged, at(c.Author) + " replied agreeing"
			}
		}
		if f.Event != AtReview && t.IsResolved && person(t.ResolvedBy, false) && changed {
			return finding.OutcomeFixed, ch.reason(fd, t) + " and " + at(t.ResolvedBy) + " resolved the thread"
		}
	}
	switch f.Event {
	case AtMerge:
		return finding.OutcomeOpenAtMerge, "open when the pull request was merged"
	case AtClose:
		return finding.OutcomeClosedUnmerged, "open when the pull request was closed without merging"
	}
	return finding.OutcomeOpen, ""
}

// change is what a compare says of the lines under a finding.
type change struct {
	known, changed bool
	head           string
	what           string // "lines 10-12", "line 7", "lib/a.go"
	deleted        bool
	added          [][]string
}

func linesChanged(fd Finding, cmp *Compare) change {
	if cmp == nil || cmp.Base != fd.Head || fd.Side == diffmap.Left {
		return change{}
	}
	c := change{known: true, head: cmp.Head, what: rangeWords(fd)}
	for _, cf := range cmp.Files {
		if cf.Path != fd.Path && cf.PreviousPath != fd.Path {
			continue
		}
		switch {
		case cf.Status == "removed":
			c.changed, c.deleted = true, true
			return c
		case fd.Line <= 0:
			c.changed = cf.Status != "renamed" || cf.Patch != ""
			return c
		case cf.Patch == "":
			// GitHub sends no patch (binary, or too large): undecidable here.
			return change{}
		}
		chs, err := diffmap.Changes(cf.Patch)
		if err != nil {
			return change{}
		}
		lo := fd.StartLine
		if lo <= 0 || lo > fd.Line {
			lo = fd.Line
		}
		for _, x := range chs {
			if x.Touches(lo, fd.Line) {
				c.changed = true
				c.added = append(c.added, x.Added)
			}
		}
		return c
	}
	return c
}

// applied reports whether the lines put in place of the finding's are its
// suggestion (GitHub's "Commit suggestion" replaces them with it).
func (c change) applied(suggestion string) bool {
	if suggestion == "" || c.deleted || len(c.added) == 0 {
		return false
	}
	want := strings.Split(strings.TrimRight(suggestion, "\n"), "\n")
	var got []string
	for _, a := range c.added {
		got = append(got, a...)
	}
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if strings.TrimRight(got[i], " \t\r") != strings.TrimRight(want[i], " \t\r") {
			return false
		}
	}
	return true
}

func (c change) reason(fd Finding, t *Thread) string {
	switch {
	case !c.known && t != nil:
		return "its thread was outdated by later commits"
	case c.deleted:
		return fd.Path + " deleted in " + gh.ShortSHA(c.head)
	}
	return c.what + " changed in " + gh.ShortSHA(c.head)
}

func rangeWords(fd Finding) string {
	switch {
	case fd.Line <= 0:
		return fd.Path
	case fd.StartLine > 0 && fd.StartLine < fd.Line:
		return fmt.Sprintf("lines %d-%d", fd.StartLine, fd.Line)
	}
	return fmt.Sprintf("line %d", fd.Line)
}

func at(login string) string {
	if login == "" {
		return "someone"
	}
	return "@" + strings.TrimSuffix(login, "[bot]")
}
