package graph

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/apitoken"
	"github.com/chakshu-dev/chakshu/ent/connectorcredential"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// allowAllCtx marks ctx to bypass the access filter, for edges of rows the
// viewer already reached (a credential's installation, seen by an admin).
func allowAllCtx(ctx context.Context) context.Context {
	return context.WithValue(ctx, allowAllKey{}, true)
}

// node resolves a global ID through the filtered client: rows the viewer may
// not read are "not found", the same as rows that do not exist.
func (h *api) node(ctx context.Context, id int) (ent.Noder, error) {
	n, err := h.client.Noder(ctx, id)
	if err != nil {
		if _, aerr := h.access(ctx); aerr != nil {
			return nil, aerr
		}
		return nil, errNotFound
	}
	return n, nil
}

func (h *api) nodes(ctx context.Context, ids []int) ([]ent.Noder, error) {
	if len(ids) > MaxPageSize {
		return nil, invalid("at most %d ids", MaxPageSize)
	}
	out := make([]ent.Noder, len(ids))
	for i, id := range ids {
		n, err := h.node(ctx, id)
		if err != nil && err != errNotFound {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (h *api) viewer(ctx context.Context) (*model.Viewer, error) {
	v := auth.FromContext(ctx)
	if v == nil {
		return nil, nil
	}
	out := &model.Viewer{User: v.User, Login: v.User.Login, Name: v.User.Name, AvatarURL: v.User.AvatarURL,
		IsAdmin: v.AnyAdmin(), AuthMethod: model.AuthMethodSession, CanWrite: v.CanWrite()}
	if v.Method == auth.MethodToken {
		out.AuthMethod = model.AuthMethodToken
		s := apitoken.Scope(v.Scope)
		out.TokenScope = &s
	}
	return out, nil
}

// timeline is the run's events, oldest first (the run is already visible).
func (h *api) timeline(ctx context.Context, r *ent.Run) ([]*ent.RunEvent, error) {
	if evs, err := r.Edges.EventsOrErr(); err == nil {
		evs = append([]*ent.RunEvent(nil), evs...)
		sort.SliceStable(evs, func(i, j int) bool {
			if !evs[i].At.Equal(evs[j].At) {
				return evs[i].At.Before(evs[j].At)
			}
			return evs[i].ID < evs[j].ID
		})
		return evs, nil
	}
	return r.QueryEvents().Order(ent.Asc(runevent.FieldAt), ent.Asc(runevent.FieldID)).All(ctx)
}

// links builds GitHub links for a run from the PR URL and the stored ids.
func (h *api) links(r *ent.Run) *model.RunLinks {
	l := &model.RunLinks{PullRequest: r.PrURL}
	repo := repoBase(r.PrURL)
	if l.PullRequest == "" && r.Edges.Repository != nil {
		repo = strings.TrimRight(h.webURL, "/") + "/" + r.Edges.Repository.FullName
		l.PullRequest = fmt.Sprintf("%s/pull/%d", repo, r.PrNumber)
	}
	if repo != "" && r.CheckRunID != 0 {
		s := fmt.Sprintf("%s/runs/%d", repo, r.CheckRunID)
		l.CheckRun = &s
	}
	if r.ActionsRunURL != "" {
		s := r.ActionsRunURL
		l.ActionsRun = &s
	} else if repo != "" && r.ActionsRunID != 0 {
		s := fmt.Sprintf("%s/actions/runs/%d", repo, r.ActionsRunID)
		l.ActionsRun = &s
	}
	if l.PullRequest != "" && r.ReviewID != 0 {
		s := fmt.Sprintf("%s#pullrequestreview-%d", l.PullRequest, r.ReviewID)
		l.Review = &s
	}
	if repo != "" && r.IncrementalSince != "" {
		s := fmt.Sprintf("%s/compare/%s...%s", repo, r.IncrementalSince, r.HeadSha)
		l.IncrementalCompare = &s
	}
	return l
}

// repoBase is https://host/owner/repo of a PR URL https://host/owner/repo/pull/N.
func repoBase(prURL string) string {
	u, err := url.Parse(prURL)
	if err != nil || u.Host == "" {
		return ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 3 || parts[len(parts)-2] != "pull" {
		return ""
	}
	u.Path = "/" + strings.Join(parts[:len(parts)-2], "/")
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// learningsApplied loads the learnings recorded on the run (visible ones only).
func (h *api) learningsApplied(ctx context.Context, r *ent.Run) ([]*ent.ReviewLearning, error) {
	if len(r.LearningsUsed) == 0 {
		return []*ent.ReviewLearning{}, nil
	}
	return h.client.ReviewLearning.Query().Where(reviewlearning.IDIn(r.LearningsUsed...)).
		Order(ent.Asc(reviewlearning.FieldID)).All(ctx)
}

// reviewerSkills lists the synced skills' names and descriptions (never their content).
func reviewerSkills(r *ent.Reviewer) []*model.ReviewerSkill {
	out := []*model.ReviewerSkill{}
	for _, s := range r.Skills {
		name, _ := s["name"].(string)
		if name == "" {
			continue
		}
		desc, _ := s["description"].(string)
		out = append(out, &model.ReviewerSkill{Name: name, Description: desc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// readsReviewerSources says whether the viewer may read a reviewer's
// sources (claudeMd, configYaml, config), which come from the reviewers
// repository and may be private (issue 43 item 9): its installation's
// admins and the people who can read that repository may; a reader of
// another repository of the installation sees the reviewer's name, skill
// names and descriptions and connectors only. Skill contents are read by
// no one through the API. docs/api.md, "Reviewer sources".
func (h *api) readsReviewerSources(ctx context.Context, obj *ent.Reviewer) (bool, error) {
	a, err := h.access(ctx)
	if err != nil {
		return false, err
	}
	if a.all {
		return true, nil
	}
	inst, err := obj.QueryInstallation().
		Select(installation.FieldID, installation.FieldAccountLogin, installation.FieldReviewersRepo).Only(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("load reviewer's installation: %w", err)
	}
	if a.adminInst[inst.ID] {
		return true, nil
	}
	full := reviewerconfig.ReviewersRepo(inst)
	return slices.ContainsFunc(a.repoNames, func(n string) bool { return strings.EqualFold(n, full) }), nil
}

// reviewerConnectors are the connectors of the reviewer's config in force.
func reviewerConnectors(r *ent.Reviewer) []string {
	c := reviewerconfig.FromEnt(r)
	if c.Connectors == nil {
		return []string{}
	}
	return c.Connectors
}

func severityCounts(blocker, major, minor, nit int) *model.SeverityCounts {
	return &model.SeverityCounts{Blocker: blocker, Major: major, Minor: minor, Nit: nit, Total: blocker + major + minor + nit}
}

func (h *api) connectorCredentials(ctx context.Context, installationID *int) ([]*ent.ConnectorCredential, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	if installationID != nil && !v.AdminOf(*installationID) || !v.AnyAdmin() {
		return nil, errAdminOnly
	}
	// The filtered client keeps the installations the viewer administers.
	q := h.clientFrom(ctx).ConnectorCredential.Query().Order(ent.Asc(connectorcredential.FieldConnector), ent.Asc(connectorcredential.FieldName))
	if installationID != nil {
		q.Where(connectorcredential.HasInstallationWith(installation.ID(*installationID)))
	}
	// Never select the ciphertext.
	return q.Select(connectorcredential.FieldID, connectorcredential.FieldCreatedAt, connectorcredential.FieldUpdatedAt,
		connectorcredential.FieldConnector, connectorcredential.FieldName, connectorcredential.FieldCreatedBy, connectorcredential.FieldHosts).Limit(1000).All(ctx)
}
