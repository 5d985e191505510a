package ghsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Reactions on pull request review comments (API.md "Reactions").
//
// REST names a reaction by "+1", "-1", "laugh", "confused", "heart",
// "hooray", "rocket" or "eyes" (docs.github.com/rest/reactions/reactions
// "About reactions"); GraphQL's ReactionContent enum names the same eight
// THUMBS_UP, THUMBS_DOWN, LAUGH, CONFUSED, HEART, HOORAY, ROCKET, EYES
// (@octokit/graphql-schema). GitHub sends no webhook when someone reacts:
// there is no reaction event (octokit/webhooks.js#553, palantir/policy-bot#1386),
// so a reaction is only seen by reading the comment again.
var reactionEnum = map[string]string{
	"+1": "THUMBS_UP", "-1": "THUMBS_DOWN", "laugh": "LAUGH", "confused": "CONFUSED",
	"heart": "HEART", "hooray": "HOORAY", "rocket": "ROCKET", "eyes": "EYES",
}

// reactionOrder is the order of the REST rollup's members.
var reactionOrder = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"}

// React records login's reaction (REST content name, e.g. "+1") on review
// comment commentID of pull request n, as a person does in GitHub's UI. It
// sends no webhook: GitHub has none for reactions.
func (s *Sim) React(repoName string, n int, commentID int64, login, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if reactionEnum[content] == "" {
		panic("ghsim: no reaction " + content)
	}
	_, p := s.mustPull(repoName, n)
	for _, c := range p.reviewComments {
		if c.id == commentID {
			s.ensureAccount(login, "User")
			s.addReaction(c, login, content)
			return
		}
	}
	panic(fmt.Sprintf("ghsim: no review comment %d on %s#%d", commentID, repoName, n))
}

// addReaction adds a reaction unless login already left that one; it
// returns the reaction and whether it is new.
func (s *Sim) addReaction(c *reviewComment, login, content string) (*reaction, bool) {
	for _, r := range c.reactions {
		if r.content == content && strings.EqualFold(r.user, login) {
			return r, false
		}
	}
	r := &reaction{id: s.id(), content: content, user: login, created: s.now()}
	c.reactions = append(c.reactions, r)
	return r, true
}

// hReactReviewComment is "Create reaction for a pull request review
// comment": 201 with the new reaction, 200 with the existing one when the
// caller already left that reaction (docs.github.com/rest/reactions/reactions
// #create-reaction-for-a-pull-request-review-comment: "A response with an
// HTTP 200 status means that you already added the reaction type"); an App
// needs Pull requests: write.
func hReactReviewComment(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	id, _ := strconv.ParseInt(c.v("comment_id"), 10, 64)
	var rc *reviewComment
	for _, p := range c.s.sortedPulls(r) {
		for _, x := range p.reviewComments {
			if x.id == id {
				rc = x
			}
		}
	}
	if rc == nil {
		c.notFound()
		return
	}
	if c.tok != nil && c.tok.inst != 0 && !c.need(r, "pull_requests", "write") {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if !c.decode(&in) {
		return
	}
	if reactionEnum[in.Content] == "" {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "Reaction", "field": "content", "code": "invalid"})
		return
	}
	a := c.actor()
	re, created := c.s.addReaction(rc, a.login, in.Content)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	c.json(status, obj{"id": re.id, "node_id": nodeID("REA", re.id), "user": c.s.userByLogin(re.user), "content": re.content, "created_at": ts(re.created)})
}

// reviewCommentReactions is the REST rollup of a review comment's reactions.
func (s *Sim) reviewCommentReactions(u string, c *reviewComment) obj {
	m := obj{"url": u + "/reactions", "total_count": len(c.reactions)}
	for _, k := range reactionOrder {
		m[k] = 0
	}
	for _, r := range c.reactions {
		m[r.content] = m[r.content].(int) + 1
	}
	return m
}

// gqlReactions is PullRequestReviewComment.reactions: a ReactionConnection,
// optionally filtered by content (a ReactionContent value).
func (g *gqlComment) gqlReactions(args map[string]any) gqlObject {
	want, _ := args["content"].(string)
	var items []gqlObject
	for _, r := range g.c.reactions {
		if want == "" || reactionEnum[r.content] == want {
			items = append(items, &gqlReaction{g.ex, r})
		}
	}
	conn := g.ex.connection("ReactionConnection", items, args)
	if m, ok := conn.(gqlMap); ok {
		viewer := g.ex.s.actorLogin(g.ex.tok)
		reacted := false
		for _, r := range g.c.reactions {
			reacted = reacted || strings.EqualFold(r.user, viewer)
		}
		m.fields["viewerHasReacted"] = reacted
	}
	return conn
}

type gqlReaction struct {
	ex *gqlExec
	r  *reaction
}

func (g *gqlReaction) typename() string { return "Reaction" }
func (g *gqlReaction) field(name string, _ map[string]any) (any, bool) {
	switch name {
	case "id":
		return nodeID("REA", g.r.id), true
	case "databaseId":
		return g.r.id, true
	case "content":
		return reactionEnum[g.r.content], true
	case "createdAt":
		return ts(g.r.created), true
	case "user":
		// Reaction.user is a User: a bot's reaction has none to show.
		a := g.ex.s.ensureAccount(g.r.user, "User")
		if a.typ != "User" {
			return nilObject(), true
		}
		return &gqlActor{g.ex, a}, true
	}
	return nil, false
}
