package security

import (
	"context"
	"fmt"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestReviewerSourcesFollowReviewersRepo: a reviewer's CLAUDE.md and
// reviewer.yaml come from the reviewers repository, which may be private.
// They are read by the installation's admins and by people who can read
// that repository; a reader of another repository of the installation sees
// none of them, as skills' contents are read by no one. Any reader of any
// repository of the installation read them before.
func TestReviewerSourcesFollowReviewersRepo(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		s := w.Sim
		s.CreateUser("rita")
		s.CreateRepo("acme", "chakshu-reviewers", map[string]string{"reviewers/security/CLAUDE.md": "# SECRETRULES\n"})
		s.SetPermission("acme/chakshu-reviewers", "rita", "read")
		db.Repository.Create().SetGithubID(s.RepoID("acme/chakshu-reviewers")).SetOwner("acme").SetName("chakshu-reviewers").
			SetFullName("acme/chakshu-reviewers").SetInstallation(w.acme).SaveX(ctx)
		db.Reviewer.UpdateOne(w.security).SetClaudeMd("# SECRETRULES\n").SetConfigYaml("model: SECRETMODEL\n").
			SetConfig(&reviewerconfig.Config{Model: "SECRETMODEL"}).ExecX(ctx)

		for _, c := range []struct {
			login string
			reads bool
		}{
			{"alice", false}, // reads acme/api only
			{"rita", true},   // reads the reviewers repository
			{"carol", true},  // an admin
		} {
			t.Run(c.login, func(t *testing.T) {
				var d struct {
					Node struct {
						Name       string
						ClaudeMd   string
						ConfigYaml string
						Config     map[string]any
					}
				}
				w.Login(c.login).Do(`query($id: ID!) { node(id: $id) { ... on Reviewer { name claudeMd configYaml config } } }`,
					map[string]any{"id": fmt.Sprint(w.security.ID)}).OK(t, &d)
				if d.Node.Name != "security" {
					t.Fatalf("%s cannot see the reviewer at all: %+v", c.login, d)
				}
				got := d.Node.ClaudeMd != "" || d.Node.ConfigYaml != "" || d.Node.Config != nil
				if got != c.reads {
					t.Fatalf("%s read the sources: %v, want %v (%+v)", c.login, got, c.reads, d.Node)
				}
			})
		}
	})
}
