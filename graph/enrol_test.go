package graph

import (
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/enrol"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const enrolmentQuery = `query($i: ID!) { enrolment(installationID: $i) { canOpenPullRequests repositories {
  repository { fullName } state newWorkflowUrl editWorkflowUrl onboardingPullRequest { number state } } } }`

const openOnboarding = `mutation($r: ID!) { openOnboardingPullRequest(repository: $r) { state onboardingPullRequest { number url state } } }`

type enrolmentResp struct {
	Enrolment struct {
		CanOpenPullRequests bool
		Repositories        []struct {
			Repository            struct{ FullName string }
			State                 string
			NewWorkflowURL        *string `json:"newWorkflowUrl"`
			EditWorkflowURL       *string `json:"editWorkflowUrl"`
			OnboardingPullRequest *struct {
				Number int
				State  string
			}
		}
	}
}

// Enrolment end to end against the simulated GitHub: without Workflows:
// write the page offers GitHub's new-file page and refuses pull requests;
// with it, one onboarding pull request per repository, reused when asked
// again, the protected default branch untouched; only admins.
func TestEnrolment(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		carol, alice := e.login("carol"), e.login("alice")
		vars := map[string]any{"i": e.inst.ID}

		var got enrolmentResp
		carol.do(enrolmentQuery, vars).into(t, &got)
		if got.Enrolment.CanOpenPullRequests || len(got.Enrolment.Repositories) != 2 {
			t.Fatalf("enrolment %+v", got)
		}
		api := got.Enrolment.Repositories[0]
		if api.Repository.FullName != "acme/api" || api.State != "MISSING" || api.NewWorkflowURL == nil || api.EditWorkflowURL != nil ||
			!strings.HasPrefix(*api.NewWorkflowURL, e.sim.WebURL()+"/acme/api/new/main?filename=.github%2Fworkflows%2Fchakshu.yml&value=") {
			t.Fatalf("acme/api %+v", api)
		}
		if r := alice.do(enrolmentQuery, vars); r.code() != "FORBIDDEN" {
			t.Fatalf("a non-admin read the enrolment: %s", r.code())
		}
		if r := carol.do(openOnboarding, map[string]any{"r": e.repoA.ID}); r.code() != "FORBIDDEN" {
			t.Fatalf("an onboarding pull request without Workflows: write: %s", r.code())
		}
		if n := e.sim.Calls()["POST /repos/{owner}/{repo}/pulls"]; n != 0 {
			t.Fatalf("%d pull requests opened", n)
		}

		perms := ghsim.DefaultPermissions()
		perms["workflows"] = "write"
		e.sim.SetInstallationPermissions(e.inst.GithubID, perms)
		e.sim.ProtectBranch("acme/api", "main")
		mainBefore := e.sim.BranchSHA("acme/api", "main")
		if r := alice.do(openOnboarding, map[string]any{"r": e.repoA.ID}); r.code() != "FORBIDDEN" {
			t.Fatalf("a writer who is no admin opened an onboarding pull request: %s", r.code())
		}
		var first, second struct {
			OpenOnboardingPullRequest struct {
				State                 string
				OnboardingPullRequest struct {
					Number int
					URL    string
					State  string
				}
			}
		}
		carol.do(openOnboarding, map[string]any{"r": e.repoA.ID}).into(t, &first)
		carol.do(openOnboarding, map[string]any{"r": e.repoA.ID}).into(t, &second)
		pr := first.OpenOnboardingPullRequest.OnboardingPullRequest
		if pr.Number == 0 || pr.State != "OPEN" || second.OpenOnboardingPullRequest.OnboardingPullRequest.Number != pr.Number {
			t.Fatalf("first %+v, second %+v", first, second)
		}
		if n := e.sim.Calls()["POST /repos/{owner}/{repo}/pulls"]; n != 1 {
			t.Fatalf("%d pull requests opened, want 1", n)
		}
		if e.sim.BranchSHA("acme/api", "main") != mainBefore || e.sim.PR("acme/api", pr.Number).HeadRef != enrol.Branch {
			t.Fatal("the default branch moved, or the pull request is not from the onboarding branch")
		}
		carol.do(enrolmentQuery, vars).into(t, &got)
		if !got.Enrolment.CanOpenPullRequests || got.Enrolment.Repositories[0].OnboardingPullRequest == nil ||
			got.Enrolment.Repositories[0].OnboardingPullRequest.Number != pr.Number {
			t.Fatalf("the pull request is not listed: %+v", got)
		}
		if n := db.AuditEntry.Query().Where(auditentry.Action(audit.RepositoryOnboarding), auditentry.Actor("carol")).CountX(t.Context()); n != 2 {
			t.Fatalf("%d audit entries, want 2", n)
		}
	})
}
