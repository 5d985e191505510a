package outcomes

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

func TestStance(t *testing.T) {
	for _, c := range []struct {
		body string
		want int
	}{
		{"This is a false positive.", Wrong},
		{"Not a bug: the caller checks it.", Wrong},
		{"won't fix, it's by design", Wrong},
		{"Thanks, but this is intentional", Wrong},
		{"Good catch! Will fix.", Agrees},
		{"Fixed in abc123", Agrees},
		{"done", Agrees},
		{"👍", Agrees},
		{"You’re right", Agrees},
		{"This is not a false positive, I checked.", NoStance}, // negated, and nothing else says a thing
		{"It isn't fixed yet", NoStance},
		{"not done", NoStance},
		{"Why would this matter?", NoStance},
		{"undone work", NoStance},                                   // a word containing "done" is not "done"
		{"> this is a false positive\nwhat do you mean?", NoStance}, // a quote is not the person's words
		{"```\n// false positive\n```\nhm", NoStance},
		{"@chakshu remember we validate input in middleware", NoStance},
	} {
		if got := Stance(c.body); got != c.want {
			t.Errorf("Stance(%q) = %d, want %d", c.body, got, c.want)
		}
	}
}

const (
	old  = "0000000000000000000000000000000000000aaa"
	head = "1111111111111111111111111111111111111bbb"
)

func compareOf(files ...CompareFile) *Compare { return &Compare{Base: old, Head: head, Files: files} }

// a patch replacing line 10 of lib/a.go, and inserting a line after line 20.
const patch = "@@ -8,5 +8,5 @@ ctx\n l8\n l9\n-l10\n+new10\n l11\n l12\n@@ -20,0 +21,1 @@\n+inserted\n"

func TestDecide(t *testing.T) {
	isChakshu := func(l string) bool { return l == "chakshu" || l == "chakshu[bot]" }
	base := Finding{ID: 1, HiddenID: "h", Reviewer: 7, Head: old, Path: "lib/a.go", Line: 10, Side: "RIGHT", CommentID: 100}
	with := func(f func(*Finding)) Finding { x := base; f(&x); return x }
	thread := func(f func(*Thread)) []Thread {
		t := Thread{ID: "T", Comments: []Comment{{ID: 100, Author: "chakshu", AuthorBot: true}}}
		f(&t)
		return []Thread{t}
	}
	type tc struct {
		name  string
		f     Finding
		facts Facts
		want  finding.Outcome
		why   string
	}
	asPosted := findings.Finding{Path: "lib/a.go", Line: 10, Side: "RIGHT", Severity: findings.Major, Category: "errors",
		Title: "Unchecked error from os.Remove", Body: "The error returned by os.Remove is dropped, so a failed delete goes unnoticed."}
	reworded := asPosted
	reworded.Line, reworded.Title = 11, "os.Remove error is ignored"
	otherIssue := asPosted
	otherIssue.Title, otherIssue.Body = "Hard-coded temp directory", "The path /tmp is fixed in code; take it from the configuration."
	review := func(fs Facts) Facts { fs.Event, fs.Reviewer, fs.IsChakshu = AtReview, 7, isChakshu; return fs }
	cases := []tc{
		{"line changed, not back", base, review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})}),
			finding.OutcomeFixed, "line 10 changed in 1111111; not reported again"},
		{"line changed, back", base, review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch}), Reported: map[string]bool{"h": true}}),
			finding.OutcomeOpen, ""},
		{"line changed, back in other words a line away", with(func(f *Finding) { f.As = asPosted }), review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch}), ReportedFindings: []findings.Finding{reworded}}),
			finding.OutcomeOpen, ""},
		{"line changed, another finding on its line", with(func(f *Finding) { f.As = asPosted }), review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch}), ReportedFindings: []findings.Finding{otherIssue}}),
			finding.OutcomeFixed, "line 10 changed in 1111111; not reported again"},
		{"line unchanged", with(func(f *Finding) { f.Line = 12 }), review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})}),
			finding.OutcomeOpen, ""},
		{"insertion inside the range", with(func(f *Finding) { f.StartLine, f.Line = 20, 21 }), review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})}),
			finding.OutcomeFixed, "lines 20-21 changed in 1111111; not reported again"},
		{"insertion after a single line", with(func(f *Finding) { f.Line = 20 }), review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})}),
			finding.OutcomeOpen, ""},
		{"file deleted", base, review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "removed"})}),
			finding.OutcomeFixed, "lib/a.go deleted in 1111111; not reported again"},
		{"another reviewer's later review", base, func() Facts {
			f := review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})})
			f.Reviewer = 8
			return f
		}(), finding.OutcomeOpen, ""},
		{"compare from another head: the thread's outdating decides", with(func(f *Finding) { f.Head = "other" }),
			review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch}), Threads: thread(func(t *Thread) { t.IsOutdated = true })}),
			finding.OutcomeFixed, "its thread was outdated by later commits; not reported again"},
		{"no patch (binary): the thread's outdating decides", base,
			review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified"}), Threads: thread(func(t *Thread) {})}),
			finding.OutcomeOpen, ""},
		{"suggestion applied", with(func(f *Finding) { f.Suggestion = "new10\n" }),
			Facts{Event: AtMerge, Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})},
			finding.OutcomeFixed, "its suggestion was applied in 1111111"},
		{"something else committed than the suggestion", with(func(f *Finding) { f.Suggestion = "other10\n" }),
			Facts{Event: AtMerge, Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})},
			finding.OutcomeOpenAtMerge, "open when the pull request was merged"},
		{"another bot's reply is no person's", base,
			review(Facts{Threads: thread(func(t *Thread) {
				t.Comments = append(t.Comments, Comment{ID: 101, Author: "dependabot", AuthorBot: true, Body: "false positive"})
			})}), finding.OutcomeOpen, ""},
		{"Chakshu's own 👎 is no person's", base,
			review(Facts{Threads: thread(func(t *Thread) { t.Comments[0].ThumbsDown = []string{"chakshu"} })}), finding.OutcomeOpen, ""},
		{"reply run said wrong", base,
			review(Facts{Threads: thread(func(t *Thread) {}), Verdicts: map[int64]Verdict{100: {findings.VerdictWrong, "carol"}}}),
			finding.OutcomeDismissed, "@carol replied that it is wrong (the reviewer withdrew it)"},
		{"reply run said fixed", base,
			review(Facts{Threads: thread(func(t *Thread) {}), Verdicts: map[int64]Verdict{100: {findings.VerdictFixed, "carol"}}}),
			finding.OutcomeAcknowledged, "@carol replied that it is fixed"},
		{"resolved by a person after the lines changed, at merge", base,
			Facts{Event: AtMerge, IsChakshu: isChakshu, Threads: thread(func(t *Thread) { t.IsResolved, t.ResolvedBy, t.IsOutdated = true, "alice", true })},
			finding.OutcomeFixed, "its thread was outdated by later commits and @alice resolved the thread"},
		{"resolved by Chakshu, at close", base,
			Facts{Event: AtClose, IsChakshu: isChakshu, Threads: thread(func(t *Thread) { t.IsResolved, t.ResolvedBy = true, "chakshu" })},
			finding.OutcomeClosedUnmerged, "open when the pull request was closed without merging"},
		{"the left side is never judged by a compare", with(func(f *Finding) { f.Side = "LEFT" }),
			review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})}),
			finding.OutcomeOpen, ""},
		{"a file-level finding: any change in the file", with(func(f *Finding) { f.Line = 0 }),
			review(Facts{Compare: compareOf(CompareFile{Path: "lib/a.go", Status: "modified", Patch: patch})}),
			finding.OutcomeFixed, "lib/a.go changed in 1111111; not reported again"},
		{"renamed with changes: the old path is followed", base,
			review(Facts{Compare: compareOf(CompareFile{Path: "lib/b.go", PreviousPath: "lib/a.go", Status: "renamed", Patch: patch})}),
			finding.OutcomeFixed, "line 10 changed in 1111111; not reported again"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decide([]Finding{c.f}, c.facts)
			var want []Decision
			if c.want != finding.OutcomeOpen {
				want = []Decision{{FindingID: 1, Outcome: c.want, Reason: c.why}}
			}
			if d := cmp.Diff(want, got, cmpopts.IgnoreFields(Decision{}, "Said")); d != "" {
				t.Errorf("Decide (-want +got):\n%s", d)
			}
		})
	}
}
