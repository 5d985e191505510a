package ghwrite

import (
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
)

// CheckOf names run r's check run. r must carry its repository (with the
// repository's installation) and its reviewer.
func CheckOf(r *ent.Run) Check {
	return Check{Repo: RepoOf(r.Edges.Repository), Name: CheckName(r.Edges.Reviewer.Name, r.Kind == run.KindReply),
		HeadSHA: r.HeadSha, RunID: r.ID, ID: r.CheckRunID}
}

// RepoOf names repo for the port; repo must carry its installation.
func RepoOf(repo *ent.Repository) Repo {
	return Repo{Installation: repo.Edges.Installation.GithubID, Owner: repo.Owner, Name: repo.Name}
}
