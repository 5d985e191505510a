package publish_test

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// quoted is f with an evidence quote.
func quoted(fd findings.Finding, evidence string) findings.Finding {
	fd.Evidence = evidence
	return fd
}

// contentsCalls counts the simulator's contents reads (counted by route).
func (e *env) contentsCalls() int {
	n := 0
	for k, c := range e.sim.Calls() {
		if strings.HasPrefix(k, "GET ") && strings.Contains(k, "/contents/") {
			n += c
		}
	}
	return n
}

// The publisher checks every quote again: a finding whose evidence is not in
// the file at head is dropped even though the runner reported it as fine,
// one whose quote is a few lines off is moved, and findings of older runners
// (no evidence) go out unchecked. Files are read only when the patch cannot
// decide, once per file.
func TestPublishChecksEvidence(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 50, "never"), nil)
		res := findings.Result{Summary: "s", Checked: findings.Checked{Files: []string{calc}}, Findings: []findings.Finding{
			quoted(f(calc, 21, findings.Major, "kept"), "added21"),
			quoted(f(calc, 22, findings.Major, "forged"), "os.Exit(1) // not in the file"),
			quoted(f(calc, 24, findings.Major, "moved"), "added21"),
			quoted(f(calc, 10, findings.Major, "far"), "line40"),
			quoted(f("README.md", 1, findings.Minor, "readme kept"), "# widget"),
			quoted(f("README.md", 1, findings.Minor, "readme forged"), "# gadget"),
			quoted(f("gone.go", 3, findings.Minor, "no such file"), "package gone"),
			f(calc, 10, findings.Minor, "older runner"),
		}}
		r := e.newRun(res)
		e.sim.ResetCalls()
		e.publish(r.ID)

		rows := e.findingsOf(r.ID)
		type row struct {
			Posted    bool
			Line      int
			MovedFrom int
			Dropped   string
			Evidence  string
		}
		want := map[string]row{
			"kept":          {true, 21, 0, "", "added21"},
			"forged":        {false, 22, 0, findings.DropEvidenceMissing, "os.Exit(1) // not in the file"},
			"moved":         {true, 21, 24, "", "added21"},
			"far":           {false, 10, 0, findings.DropEvidenceFar, "line40"},
			"readme kept":   {true, 1, 0, "", "# widget"},
			"readme forged": {false, 1, 0, findings.DropEvidenceMissing, "# gadget"},
			"no such file":  {false, 3, 0, findings.DropEvidenceMissing, "package gone"},
			"older runner":  {true, 10, 0, "", ""},
		}
		for title, w := range want {
			g, ok := rows[title]
			if !ok {
				t.Errorf("no row for %q", title)
				continue
			}
			got := row{g.Posted, g.Line, g.EvidenceMovedFrom, g.DroppedReason, g.Evidence}
			if got != w {
				t.Errorf("%q: got %+v, want %+v", title, got, w)
			}
		}
		if n := len(rows); n != len(want) {
			t.Errorf("%d rows, want %d", n, len(want))
		}
		// On GitHub: the kept, the moved (on its quote's line) and the
		// older runner's finding inline; nothing of the forged ones.
		lines := map[int]int{}
		for _, c := range e.sim.ReviewComments(repoName, e.pr) {
			lines[c.Line]++
			if strings.Contains(c.Body, "forged") || strings.Contains(c.Body, "no such file") {
				t.Errorf("a dropped finding was posted: %s", c.Body)
			}
		}
		if lines[21] != 2 || lines[10] != 1 || len(lines) != 2 {
			t.Errorf("inline comments by line: %v", lines)
		}
		body := e.chakshuReviews()[0].Body
		if strings.Contains(body, "gadget") || strings.Contains(body, "readme forged") {
			t.Errorf("the review body shows a dropped finding:\n%s", body)
		}
		if strings.Contains(body, "could not be checked") {
			t.Errorf("every quote was checked, yet the review body says one was not:\n%s", body)
		}
		for _, want := range []string{"_4 findings were dropped: the code they quote is not in the file at this commit._", "_1 finding was moved to the lines it quotes._"} {
			if !strings.Contains(body, want) {
				t.Errorf("the review body lacks %q:\n%s", want, body)
			}
		}
		// One contents read per file the patch could not decide: lib/calc.go
		// (forged, moved, far), README.md (two findings) and gone.go: three
		// files, six findings, three reads.
		if n := e.contentsCalls(); n != 3 {
			t.Errorf("%d contents reads, want 3", n)
		}
		if got := e.run(r.ID); got.FindingsPosted != 4 || got.FindingsDropped != 4 {
			t.Errorf("run: %d posted, %d dropped", got.FindingsPosted, got.FindingsDropped)
		}
	})
}

// Quotes the patch shows on the finding's lines cost no GitHub call.
func TestPublishEvidenceFromPatchNoCalls(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 50, "never"), nil)
		res := findings.Result{Summary: "s", Checked: findings.Checked{Files: []string{calc}}, Findings: []findings.Finding{
			quoted(f(calc, 21, findings.Major, "a"), "added21"),
			quoted(f(calc, 22, findings.Major, "b"), "  added22  "),
			quoted(f(calc, 10, findings.Major, "c"), "changed10"),
		}}
		// The runner's own check dropped two and moved one (its report, in
		// the run's checked map): the review says so.
		r := e.newRun(res, func(c *ent.RunCreate) {
			st := storedOf(t, res)
			st.Checked = &findings.Coverage{Evidence: &findings.RunnerEvidence{Kept: 2, Moved: 1, Dropped: 2}}
			c.SetResult(st)
		})
		e.sim.ResetCalls()
		e.publish(r.ID)
		if n := e.contentsCalls(); n != 0 {
			t.Fatalf("%d contents reads", n)
		}
		if got := e.run(r.ID); got.FindingsPosted != 3 {
			t.Fatalf("%d posted", got.FindingsPosted)
		}
		body := e.chakshuReviews()[0].Body
		for _, want := range []string{"_2 findings were dropped: the code they quote is not in the file at this commit._", "_1 finding was moved to the lines it quotes._"} {
			if !strings.Contains(body, want) {
				t.Errorf("the review body lacks %q:\n%s", want, body)
			}
		}
	})
}

// A finding on side LEFT quotes the base commit: a removed line the patch
// shows is kept without a call; a forged quote reads the file at the base
// commit once and is dropped. A file over the read limit is published
// unchecked, one at the limit is checked.
func TestPublishEvidenceLeftAndFileLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, rules(findings.Nit, 50, "never"), nil)
		big := strings.Repeat("x", publish.MaxEvidenceFile-len("\nbig tail"))
		e.sim.Commit(repoName, "feature", map[string]string{"at.txt": big + "\nbig tail", "over.txt": big + "\nbig tail!"}, "big files")
		left := func(fd findings.Finding, ev string) findings.Finding {
			fd.Side = "LEFT"
			return quoted(fd, ev)
		}
		res := findings.Result{Summary: "s", Checked: findings.Checked{Files: []string{calc}}, Findings: []findings.Finding{
			left(f(calc, 10, findings.Major, "removed line"), "line10"),
			left(f(calc, 11, findings.Major, "forged left"), "changed10"),
			quoted(f("at.txt", 2, findings.Minor, "at the limit"), "not in it"),
			quoted(f("over.txt", 2, findings.Minor, "over the limit"), "not in it"),
		}}
		base := e.sim.PR(repoName, e.pr).BaseSHA
		r := e.newRun(res, func(c *ent.RunCreate) { c.SetBaseSha(base) })
		e.sim.ResetCalls()
		e.publish(r.ID)
		rows := e.findingsOf(r.ID)
		for title, dropped := range map[string]string{
			"removed line": "", "forged left": findings.DropEvidenceMissing,
			"at the limit": findings.DropEvidenceMissing, "over the limit": "",
		} {
			if g := rows[title]; g == nil || g.DroppedReason != dropped || g.Posted != (dropped == "") {
				t.Errorf("%q: %+v, want dropped %q", title, g, dropped)
			}
		}
		// calc.go at the base (the forged quote), at.txt and over.txt.
		if n := e.contentsCalls(); n != 3 {
			t.Errorf("%d contents reads, want 3", n)
		}
		// The review says what could not be checked, and nothing else does.
		body := e.chakshuReviews()[0].Body
		if want := "_1 finding's quote could not be checked against the code (the file is too large to read); read it with care._"; !strings.Contains(body, want) {
			t.Errorf("review body lacks %q:\n%s", want, body)
		}
	})
}
