package graph

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Reviewer.modelStatus: each reviewer's model and its lifecycle from the
// catalogue; unknown and retired carry what to do, a deprecated model warns
// from 60 days before its retirement (claude-opus-4-5 retires 2027-01-22,
// so it warns from 2026-11-23 on: this test runs after that, and its state is
// read from the catalogue at the test's time, deprecated until the retirement
// and retired after it).
func TestReviewerModelStatus(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		db.Reviewer.UpdateOne(e.revPrf).SetConfig(&reviewerconfig.Config{Model: "claude-opus-4-5"}).ExecX(ctx)
		db.Reviewer.Create().SetName("old").SetInstallation(e.inst).SetConfig(&reviewerconfig.Config{Model: "claude-sonnet-4-5"}).SaveX(ctx)
		db.Reviewer.Create().SetName("plain").SetInstallation(e.inst).SaveX(ctx)
		r := e.login("carol").do(`{ reviewers(first: 10, orderBy: {field: NAME, direction: ASC}) { edges { node { name
			modelStatus { model provider state retiresOn replacement warning } } } } }`, nil)
		if len(r.Errors) > 0 {
			t.Fatalf("errors %+v", r.Errors)
		}
		var out struct {
			Reviewers struct {
				Edges []struct {
					Node struct {
						Name        string
						ModelStatus struct {
							Model, Provider, State string
							RetiresOn, Replacement *string
							Warning                *string
						}
					}
				}
			}
		}
		if err := json.Unmarshal(r.Data, &out); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, ed := range out.Reviewers.Edges {
			m := ed.Node.ModelStatus
			s := m.Model + " " + m.State
			if m.RetiresOn != nil {
				s += " " + *m.RetiresOn
			}
			if m.Warning != nil {
				s += " warn"
			}
			got[ed.Node.Name] = s
		}
		opus, err := models.Builtin().Lookup("claude-opus-4-5")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"old":      "claude-sonnet-4-5 retired 2026-11-30 warn",
			"perf":     "claude-opus-4-5 " + opus.StatusAt(time.Now()).State + " 2027-01-22 warn",
			"plain":    "claude-sonnet-5-5 active",
			"security": "claude-x unknown warn",
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("model status (-want +got):\n%s", d)
		}
	})
}
