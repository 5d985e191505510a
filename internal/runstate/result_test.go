package runstate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Runs stored by schema 2 (result_json and the checked map, no result
// column) keep their result through the upgrade that adds the column:
// runstate.Result reads the legacy columns of a run that has no typed result.
func TestResultOfARunStoredBeforeTheUpgrade(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, revs := seed(t, db)
		pr := 0
		mk := func(kind run.Kind, resultJSON string, checked map[string]any) int {
			pr++
			c := db.Run.Create().SetRepositoryID(repo).SetReviewerID(revs[0]).SetKind(kind).SetPrNumber(pr).SetHeadSha("h").
				SetTrigger(run.TriggerPortal).SetStatus(run.StatusPublishing).SetResultJSON(resultJSON)
			if checked != nil {
				c.SetChecked(checked)
			}
			return c.SaveX(ctx).ID
		}
		review := mk(run.KindReview, `{"summary":"S","checked":{"files":[],"skills":[]},"findings":[{"path":"a.go","line":2,"severity":"nit","category":"style","title":"T","body":"B"}]}`,
			map[string]any{"files": []string{"a.go"}, "skills": []string{}, "files_read": []string{"a.go"}, "evidence": map[string]any{"kept": 1, "moved": 0, "dropped": 2, "unchecked": 0, "dropped_findings": []any{}}})
		reply := mk(run.KindReply, `{"reply":"Fixed now.","verdict":"fixed"}`, nil)
		none := mk(run.KindReview, "", nil)
		if _, err := db.SQL.ExecContext(ctx, `ALTER TABLE runs DROP COLUMN result`); err != nil {
			t.Fatalf("make the schema-2 table: %v", err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("upgrade: %v", err)
		}

		st, err := runstate.Result(db.Run.GetX(ctx, review))
		if err != nil {
			t.Fatal(err)
		}
		want := &findings.Stored{
			Review: &findings.Result{Summary: "S", Checked: findings.Checked{Files: []string{}, Skills: []string{}},
				Findings: []findings.Finding{{Path: "a.go", Line: 2, Side: "RIGHT", Severity: findings.Nit, Category: "style", Title: "T", Body: "B"}}},
			Checked: &findings.Coverage{Files: []string{"a.go"}, Skills: []string{}, FilesRead: []string{"a.go"},
				Evidence: &findings.RunnerEvidence{Kept: 1, Dropped: 2, DroppedFindings: []findings.DroppedFinding{}}},
		}
		if d := cmp.Diff(want, st); d != "" {
			t.Errorf("review run's result (-want +got):\n%s", d)
		}
		if st, err := runstate.Result(db.Run.GetX(ctx, reply)); err != nil || st.Review != nil || st.Reply == nil || st.Reply.Verdict != findings.VerdictFixed {
			t.Errorf("reply run's result: %+v, %v", st, err)
		}
		if _, err := runstate.Result(db.Run.GetX(ctx, none)); !errors.Is(err, runstate.ErrNoResult) {
			t.Errorf("a run that never reported: %v, want ErrNoResult", err)
		}

		// A run stored with the typed result is read as stored, its
		// legacy columns not consulted.
		typed := &findings.Stored{Reply: &findings.ReplyResult{Reply: "Wrong: see line 3.", Verdict: findings.VerdictWrong}}
		db.Run.UpdateOneID(reply).SetResult(typed).SetResultJSON("{not json").ExecX(ctx)
		if st, err := runstate.Result(db.Run.GetX(ctx, reply)); err != nil || !cmp.Equal(st, typed) {
			t.Errorf("typed result: %+v, %v", st, err)
		}
	})
}
