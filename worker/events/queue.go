package events

import (
	"errors"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
)

// refused says whether err is reviewrequest.Request declining quietly for an event:
// a closed pull request queues nothing and tells nobody.
func refused(err error) bool {
	return errors.Is(err, reviewrequest.ErrNotOpen)
}

// asPR is a payload's pull request as the use case takes it.
func (p *prPayload) asPR() *reviewrequest.PR {
	return &reviewrequest.PR{Number: p.Number, Title: p.Title, HTMLURL: p.HTMLURL, State: p.State, Draft: p.Draft,
		HeadSHA: p.Head.SHA, HeadRef: p.Head.Ref, BaseSHA: p.Base.SHA, BaseRef: p.Base.Ref,
		HeadRepoID: p.Head.Repo.ID, BaseRepoID: p.Base.Repo.ID}
}

func names(rs []*ent.Reviewer) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}
