package publish

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are parsed once; they are read-only after that.
var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
}).ParseFS(templateFS, "templates/*.tmpl"))

// Caps on agent text in what Chakshu posts. GitHub refuses bodies over 65,536
// characters; a review body must also fit every finding outside the diff.
const (
	maxTitle        = 300
	maxInlineBody   = 8000
	maxBodyEntry    = 1500
	maxSummary      = 8000
	maxDirective    = 300
	maxReply        = 5000
	maxReviewBody   = 60000
	maxFilesShown   = 30
	maxSkillsShown  = 30
	maxSuggestion   = findings.MaxSuggestion
	compactEntryCap = 200
)

// severityStyle is the status line of DESIGN §5.
var severityStyle = map[findings.Severity][2]string{
	findings.Blocker: {"⚠️ Potential issue", "🔴 Blocker"},
	findings.Major:   {"⚠️ Potential issue", "🟠 Major"},
	findings.Minor:   {"💭 Suggestion", "🟡 Minor"},
	findings.Nit:     {"💭 Suggestion", "🔵 Nit"},
}

// severityEmoji labels a severity in counts.
var severityEmoji = map[findings.Severity]string{
	findings.Blocker: "🔴", findings.Major: "🟠", findings.Minor: "🟡", findings.Nit: "🔵",
}

func execute(name string, data any) string {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		// The templates are fixed and tested; a failure is a programming error.
		panic(fmt.Sprintf("publish: template %s: %v", name, err))
	}
	return b.String()
}

// withMarkers appends the hidden marker block: after all agent text, so it
// is the trailing block ParseMarkers reads.
func withMarkers(body string, markers ...string) string {
	return strings.TrimRight(body, "\n") + "\n\n" + strings.Join(markers, "\n") + "\n"
}

type findingView struct {
	Kind, Severity, Title, Body, Where string
	HasSuggestion                      bool
	Fence, FenceInfo, Suggestion       string
	// Evidence is the quoted code of a finding shown in the review body
	// (away from its lines), in a fence of EvidenceFence.
	Evidence, EvidenceFence string
}

func viewFinding(it *Item, bodyCap int, inline bool) findingView {
	st := severityStyle[it.Severity]
	v := findingView{
		Kind: st[0], Severity: st[1],
		Title: Line(it.Title, maxTitle),
		Body:  Markdown(it.Body, bodyCap),
		Where: where(it),
	}
	if it.Suggestion != nil && len(*it.Suggestion) <= maxSuggestion {
		s := strings.ReplaceAll(strings.ReplaceAll(*it.Suggestion, "\r\n", "\n"), "\x00", "")
		s = strings.ToValidUTF8(s, "�")
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		v.HasSuggestion, v.Suggestion, v.Fence = true, s, Fence(s)
		if inline && it.Side != diffmap.Left {
			v.FenceInfo = "suggestion"
		}
	}
	if !inline && strings.TrimSpace(it.Evidence) != "" {
		e := strings.ToValidUTF8(strings.ReplaceAll(strings.ReplaceAll(it.Evidence, "\r\n", "\n"), "\x00", ""), "�")
		e = strings.Trim(e, "\n")
		v.Evidence, v.EvidenceFence = e+"\n", Fence(e)
	}
	return v
}

// where is path:line or path:start-line, safe inside a code span.
func where(it *Item) string {
	p := strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(it.Path)
	p = capBytes(p, 300)
	if it.StartLine > 0 && it.StartLine < it.Line {
		return fmt.Sprintf("%s:%d-%d", p, it.StartLine, it.Line)
	}
	return fmt.Sprintf("%s:%d", p, it.Line)
}

// RenderComment renders one inline comment with its markers.
func RenderComment(it *Item, runID int, reviewer string) string {
	body := execute("comment.md.tmpl", viewFinding(it, maxInlineBody, true))
	return withMarkers(body, FindingMarker(it.HiddenID), RunMarker(runID), marker(kindReviewer, safeName(reviewer)))
}

// Learning is a review learning the run used.
type Learning struct {
	Glob, Directive string
}

// Coverage says how much of the PR the review saw.
type Coverage struct {
	// PRFiles is the number of files the PR touches.
	PRFiles int
	// Read is the number of files the reviewer read.
	Read int
	// Filtered is the number of PR files dropped by path_filters.
	Filtered int
	// Skipped is the number of PR files GitHub sent no patch for (binary or too large).
	Skipped int
}

// ReviewInput is everything a review body shows.
type ReviewInput struct {
	RunID    int
	Reviewer string
	// RunURL is the run's page in the portal.
	RunURL  string
	Summary string
	Checked findings.Checked
	Plan    *Plan
	Rules   Rules
	// Reported is how many findings the agent reported.
	Reported int
	// IncrementalSince is the SHA the review is incremental from; empty for a full review.
	IncrementalSince string
	// BehindBy is how many commits the head is behind BaseRef.
	BehindBy  int
	BaseRef   string
	CostUSD   float64
	Turns     int
	Learnings []Learning
	Coverage  Coverage
	// EvidenceDropped and EvidenceMoved count findings the evidence checks
	// (the runner's and the publisher's) dropped, their quote not in the
	// file, and moved to the lines they quote; EvidenceUnchecked counts
	// findings published whose quote the publisher could not check (the
	// runner's own count is not shown: the publisher checks every finding
	// again).
	EvidenceDropped, EvidenceMoved, EvidenceUnchecked int
}

type learningView struct{ Glob, Directive string }

type reviewView struct {
	RunID                         int
	Reviewer, RunURL, Summary     string
	IncrementalSince, BaseRef     string
	BehindBy                      int
	Posted                        bool
	Counts                        string
	InlineCount                   int
	Body                          []findingView
	NothingReason                 string
	LeftOut, MaxFindings, OnPR    int
	FilesRead, FilesShown, Skills []string
	FilesMore                     int
	Learnings                     []learningView
	Cost                          string
	Turns                         int
	Coverage                      Coverage

	// EvidenceDropped, EvidenceMoved, EvidenceUnchecked: what the evidence checks did.
	EvidenceDropped, EvidenceMoved, EvidenceUnchecked int
}

// RenderReview renders the review body with its markers: the run marker, the
// reviewer, and the hidden ID of every finding placed in the body.
func RenderReview(in ReviewInput) string {
	body := renderReview(in, maxBodyEntry)
	if len(body) > maxReviewBody {
		// Too many long findings outside the diff: keep each to its title.
		body = renderReview(in, 0)
	}
	if len(body) > maxReviewBody {
		body = capBytes(body, maxReviewBody)
		body = closeFences(body)
	}
	markers := []string{RunMarker(in.RunID), marker(kindReviewer, safeName(in.Reviewer))}
	for _, it := range in.Plan.Body() {
		markers = append(markers, FindingMarker(it.HiddenID))
	}
	return withMarkers(body, markers...)
}

func renderReview(in ReviewInput, entryCap int) string {
	v := reviewView{
		RunID: in.RunID, Reviewer: Line(safeName(in.Reviewer), 100), RunURL: in.RunURL,
		Summary:  Markdown(in.Summary, maxSummary),
		BehindBy: in.BehindBy, BaseRef: safeRef(in.BaseRef),
		InlineCount: len(in.Plan.Inline()),
		LeftOut:     in.Plan.LeftOut, MaxFindings: in.Rules.MaxFindings, OnPR: in.Plan.OnPR,
		Cost: fmt.Sprintf("$%.2f", in.CostUSD), Turns: in.Turns, Coverage: in.Coverage,
		EvidenceDropped: in.EvidenceDropped, EvidenceMoved: in.EvidenceMoved, EvidenceUnchecked: in.EvidenceUnchecked,
	}
	if in.IncrementalSince != "" {
		v.IncrementalSince = shortSHA(in.IncrementalSince)
	}
	posted := in.Plan.Posted()
	v.Posted = len(posted) > 0
	v.Counts = countLine(posted)
	if !v.Posted {
		v.NothingReason = nothingReason(in)
	}
	for _, it := range in.Plan.Body() {
		fv := viewFinding(it, max(entryCap, 1), false)
		if entryCap == 0 {
			fv.Body, fv.HasSuggestion, fv.Evidence = "", false, ""
		}
		v.Body = append(v.Body, fv)
	}
	v.FilesRead = dedupe(in.Checked.Files)
	for i, f := range v.FilesRead {
		if i == maxFilesShown {
			v.FilesMore = len(v.FilesRead) - i
			break
		}
		v.FilesShown = append(v.FilesShown, codeSafe(f))
	}
	for i, s := range dedupe(in.Checked.Skills) {
		if i == maxSkillsShown {
			break
		}
		v.Skills = append(v.Skills, codeSafe(s))
	}
	for _, l := range in.Learnings {
		v.Learnings = append(v.Learnings, learningView{Glob: codeSafe(l.Glob), Directive: Line(l.Directive, maxDirective)})
	}
	return execute("review.md.tmpl", v)
}

func countLine(items []*Item) string {
	n := map[findings.Severity]int{}
	for _, it := range items {
		n[it.Severity]++
	}
	var parts []string
	for _, s := range findings.Severities {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s %s", n[s], severityEmoji[s], s))
		}
	}
	return strings.Join(parts, " · ")
}

func nothingReason(in ReviewInput) string {
	if in.Reported == 0 {
		return "The reviewer found nothing to flag in what it read."
	}
	var parts []string
	if n := in.Plan.OnPR; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s already on this PR from earlier reviews", n, plural(n, "is", "are")))
	}
	if n := in.Plan.BelowMin; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s below this reviewer's min_severity (%s)", n, plural(n, "was", "were"), in.Rules.MinSeverity))
	}
	if len(parts) == 0 {
		return "The reviewer found nothing new to flag."
	}
	return fmt.Sprintf("Of the %d %s the reviewer reported, %s.", in.Reported, plural(in.Reported, "finding", "findings"), strings.Join(parts, " and "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// codeSafe makes agent text (a path, a skill name) safe inside a code span.
func codeSafe(s string) string {
	s = strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(s)
	return capBytes(s, 200)
}

// safeRef shows a branch name as code.
func safeRef(s string) string {
	if s == "" {
		return "the base branch"
	}
	return "`" + codeSafe(s) + "`"
}

func shortSHA(s string) string { return gh.ShortSHA(safeName(s)) }

// CheckInput is what a review run's check run shows.
type CheckInput struct {
	RunID     int
	RunURL    string
	ReviewURL string
	// Standing are the findings that are on the PR after this run: posted now
	// or already posted by an earlier run.
	Standing []*Item
	Posted   int
	OnPR     int
	Dropped  int
	FailOn   string
	CostUSD  float64
	Duration time.Duration
	// Samples are the figures of a review in several passes (nil for one).
	Samples *findings.Samples
	// Demoted are the categories demote_below_acceptance (DemoteBelow)
	// demoted in this run.
	Demoted     []reviewerconfig.Demotion
	DemoteBelow float64
}

type sevCount struct {
	Label string
	N     int
}

// RenderCheck returns the check run's output title and summary.
func RenderCheck(in CheckInput) (title, summary string) {
	n := map[findings.Severity]int{}
	for _, it := range in.Standing {
		n[it.Severity]++
	}
	var by []sevCount
	var parts []string
	for _, s := range findings.Severities {
		by = append(by, sevCount{Label: severityEmoji[s] + " " + string(s), N: n[s]})
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	title = "No findings"
	if len(in.Standing) > 0 {
		title = fmt.Sprintf("%d %s: %s", len(in.Standing), plural(len(in.Standing), "finding", "findings"), strings.Join(parts, ", "))
	}
	failOn := ""
	if sev := findings.Severity(in.FailOn); sev.Valid() {
		failOn = string(sev)
	}
	summary = execute("check.md.tmpl", struct {
		Standing                     bool
		BySeverity                   []sevCount
		Posted, OnPR, Dropped, RunID int
		FailOn, Cost, Duration       string
		ReviewURL, RunURL            string
		Samples                      *findings.Samples
		Demoted                      []string
		DemoteBelow                  string
	}{
		Samples: in.Samples, Demoted: demotedLines(in.Demoted), DemoteBelow: fmt.Sprintf("%.0f%%", in.DemoteBelow*100),
		Standing: len(in.Standing) > 0, BySeverity: by, Posted: in.Posted, OnPR: in.OnPR, Dropped: in.Dropped,
		RunID: in.RunID, FailOn: failOn, Cost: fmt.Sprintf("$%.2f", in.CostUSD),
		Duration: in.Duration.Round(time.Second).String(), ReviewURL: in.ReviewURL, RunURL: in.RunURL,
	})
	return title, summary
}

// demotedLines say why each category was demoted, its name safe in a code span.
func demotedLines(ds []reviewerconfig.Demotion) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		d.Category = codeSafe(d.Category)
		out[i] = d.String()
	}
	return out
}

// ReplyInput is a reply run's answer.
type ReplyInput struct {
	RunID   int
	Reply   string
	Verdict findings.Verdict
	// Resolved says the thread is being resolved with this answer.
	Resolved bool
}

// RenderReply renders a reply run's answer with its marker.
func RenderReply(in ReplyInput) string {
	note := ""
	switch {
	case in.Verdict == findings.VerdictWrong && in.Resolved:
		note = "Chakshu withdraws this finding and resolves the thread."
	case in.Verdict == findings.VerdictFixed && in.Resolved:
		note = "Chakshu considers this fixed and resolves the thread."
	case in.Verdict == findings.VerdictWrong:
		note = "Chakshu withdraws this finding."
	case in.Verdict == findings.VerdictFixed:
		note = "Chakshu considers this fixed."
	}
	body := execute("reply.md.tmpl", struct{ Reply, Note string }{Markdown(in.Reply, maxReply), note})
	return withMarkers(body, ReplyMarker(in.RunID))
}
