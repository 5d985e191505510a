package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

func TestCheckEvidenceKeepsMovesDrops(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, "\tx"+strings.Repeat("y", i)+" := f()")
	}
	lines[9] = "\tq := \"SELECT \" + id" // line 10
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src/db.go"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := tools.OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	sugg := "\tq := ?"
	mk := func(title string, line int, evidence string) findings.Finding {
		return findings.Finding{Path: "src/db.go", Line: line, Severity: findings.Major, Category: "security", Title: title, Body: "b", Evidence: evidence}
	}
	in := findings.Result{Summary: "s", Checked: findings.Checked{Files: []string{}, Skills: []string{}}, Findings: []findings.Finding{
		mk("kept", 10, `q := "SELECT " + id`),
		mk("moved", 13, `q := "SELECT " + id`),
		mk("missing", 10, `q := "SELECT * " + id`),
		mk("far", 21, `q := "SELECT " + id`),
		{Path: "src/db.go", Line: 3, Side: "LEFT", Severity: findings.Minor, Title: "left", Evidence: "old code"},
		{Path: "src/gone.go", Line: 3, Severity: findings.Minor, Title: "no file", Evidence: "anything"},
	}}
	in.Findings[1].Suggestion = &sugg
	res := &in
	rep := checkEvidence(fsys, res)
	if b, _ := json.Marshal(res); !json.Valid(b) {
		t.Fatal("checked result does not encode")
	} else if _, err := findings.ParseResult(b); err != nil {
		t.Fatalf("checked result invalid: %v", err)
	}
	type row struct {
		Title     string
		Line      int
		MovedFrom int
		Suggest   bool
	}
	var got []row
	for _, f := range res.Findings {
		got = append(got, row{f.Title, f.Line, f.EvidenceMovedFrom, f.Suggestion != nil})
	}
	want := []row{{"kept", 10, 0, false}, {"moved", 10, 13, true}, {"left", 3, 0, false}, {"no file", 3, 0, false}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("findings reported (-want +got):\n%s", d)
	}
	wantRep := &runnerproto.EvidenceReport{Kept: 1, Moved: 1, Dropped: 2, Unchecked: 2, DroppedFindings: []runnerproto.DroppedFinding{
		{Path: "src/db.go", Line: 10, Title: "missing", Evidence: `q := "SELECT * " + id`, Reason: findings.DropEvidenceMissing},
		{Path: "src/db.go", Line: 21, Title: "far", Evidence: `q := "SELECT " + id`, Reason: findings.DropEvidenceFar},
	}}
	if d := cmp.Diff(wantRep, rep); d != "" {
		t.Fatalf("evidence report (-want +got):\n%s", d)
	}
}

// The reviewer's CLAUDE.md switches the scripted model's rule families on
// through the system prompt the runner renders: "Rules: correctness" keeps
// only the ignored error of TestFullRun's three findings.
func TestRuleFamiliesFollowClaudeMD(t *testing.T) {
	for _, c := range []struct {
		claudeMD string
		want     []string
	}{
		{"Flag ignored errors.\n\nRules: correctness", []string{"correctness"}},
		{"Rules: security, style", []string{"style", "security"}},
		{"Rules: none", nil},
	} {
		t.Run(c.claudeMD, func(t *testing.T) {
			job := reviewJob()
			job.ClaudeMD = c.claudeMD
			h := newHarness(t, job, scriptedmodel.Handler())
			if err := h.run(t); err != nil {
				t.Fatalf("Run: %v\n%s", err, h.log)
			}
			res, err := findings.ParseResult(h.report(t).Result)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, f.Category)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("categories (-want +got):\n%s", d)
			}
		})
	}
}

// A file at the size limit is checked; one byte more and its findings are
// left to the server's check.
func TestCheckEvidenceFileLimit(t *testing.T) {
	dir := t.TempDir()
	at := strings.Repeat("x", maxEvidenceFile-len("\nquoted line")) + "\nquoted line"
	if err := os.WriteFile(filepath.Join(dir, "at.txt"), []byte(at), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "over.txt"), []byte(at+"!"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := tools.OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	res := findings.Result{Summary: "s", Checked: findings.Checked{Files: []string{}, Skills: []string{}}, Findings: []findings.Finding{
		{Path: "at.txt", Line: 2, Severity: findings.Nit, Title: "at", Evidence: "not quoted"},
		{Path: "over.txt", Line: 2, Severity: findings.Nit, Title: "over", Evidence: "not quoted"},
	}}
	rep := checkEvidence(fsys, &res)
	if rep.Dropped != 1 || rep.Unchecked != 1 || rep.DroppedFindings[0].Title != "at" {
		t.Fatalf("report %+v", rep)
	}
}
