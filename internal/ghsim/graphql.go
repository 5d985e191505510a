package ghsim

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

type gqlRequest struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

func (s *Sim) serveGraphQL(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusNotFound, obj{"message": "Not Found"})
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req gqlRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, obj{"message": "Problems parsing JSON", "documentation_url": "https://docs.github.com/graphql"})
		return
	}
	f := strings.Fields(r.Header.Get("Authorization"))
	s.mu.Lock()
	var tok *accessToken
	if len(f) == 2 {
		tok = s.tokens[f[1]]
	}
	if tok == nil || s.now().After(tok.expires) {
		s.mu.Unlock()
		writeJSON(w, http.StatusUnauthorized, obj{"message": "Bad credentials", "documentation_url": "https://docs.github.com/graphql"})
		return
	}
	s.mu.Unlock()
	if v := s.opts.Validator; v != nil {
		if err := v.GraphQL(req.Query, req.OperationName, req.Variables); err != nil {
			s.validationError(fmt.Errorf("%v\n%s", err, req.Query))
			writeJSON(w, http.StatusOK, obj{"errors": gqlErrors(err)})
			return
		}
	}
	doc, perr := parser.ParseQuery(&ast.Source{Name: "query", Input: req.Query})
	if perr != nil {
		writeJSON(w, http.StatusOK, obj{"errors": gqlErrors(perr)})
		return
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil && len(doc.Operations) > 0 {
		op = doc.Operations[0]
	}
	if op == nil {
		writeJSON(w, http.StatusOK, obj{"errors": []any{obj{"message": "No operation to run"}}})
		return
	}
	vars := variables(op, req.Variables)
	ex := &gqlExec{s: s, tok: tok, vars: vars, frags: doc.Fragments}
	s.mu.Lock()
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			s.gqlCalls[string(op.Operation)+" "+f.Name]++
		}
	}
	var root gqlObject = &gqlQuery{ex}
	if op.Operation == ast.Mutation {
		root = &gqlMutation{ex}
	}
	data := ex.selectOn(root, op.SelectionSet)
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	resp := obj{"data": data}
	if len(ex.errors) > 0 {
		resp["errors"] = ex.errors
	}
	writeJSON(w, http.StatusOK, resp)
	s.deliver(pending)
}

// gqlObject is a GraphQL object the executor can read fields of.
type gqlObject interface {
	typename() string
	field(name string, args map[string]any) (any, bool)
}

type gqlExec struct {
	s      *Sim
	tok    *accessToken
	vars   map[string]any
	frags  ast.FragmentDefinitionList
	errors []any
}

// selectOn evaluates a selection set on o.
func (ex *gqlExec) selectOn(o gqlObject, set ast.SelectionSet) obj {
	out := obj{}
	for _, sel := range set {
		switch x := sel.(type) {
		case *ast.Field:
			key := x.Alias
			if key == "" {
				key = x.Name
			}
			if x.Name == "__typename" {
				out[key] = o.typename()
				continue
			}
			v, ok := o.field(x.Name, arguments(x, ex.vars))
			if !ok {
				ex.s.validationError(fmt.Errorf("GraphQL field %s.%s is valid but not simulated by ghsim", o.typename(), x.Name))
				out[key] = nil
				continue
			}
			out[key] = ex.value(v, x.SelectionSet)
		case *ast.InlineFragment:
			if x.TypeCondition == "" || x.TypeCondition == o.typename() || implements(o.typename(), x.TypeCondition) {
				for k, v := range ex.selectOn(o, x.SelectionSet) {
					out[k] = v
				}
			}
		case *ast.FragmentSpread:
			def := x.Definition
			if def == nil {
				def = ex.frags.ForName(x.Name)
			}
			if def != nil && (def.TypeCondition == o.typename() || implements(o.typename(), def.TypeCondition)) {
				for k, v := range ex.selectOn(o, def.SelectionSet) {
					out[k] = v
				}
			}
		}
	}
	return out
}

// interfaces are the interfaces and unions GitHub's schema puts each
// simulated type in (taken from it, spec/schema.graphql), for fragments on
// them: the simulator executes documents without the schema, which only the
// tests' validation loads (ghsimtest.Spec).
var interfaces = map[string][]string{
	"Repository": {"PermissionGranter", "PinnableItem", "Node", "PackageOwner", "ProjectOwner", "ProjectV2Recent", "RepositoryInfo", "Starrable", "Subscribable",
		"UniformResourceLocatable", "RuleSource", "SearchResultItem", "SponsorsListingFeatureableItem", "UserListItems"},
	"PullRequest": {"Closer", "IssueOrPullRequest", "MilestoneItem", "ProjectCardItem", "ProjectV2ItemContent", "Assignable", "Closable", "Comment", "Labelable",
		"Lockable", "Node", "ProjectV2Owner", "Reactable", "RepositoryNode", "Subscribable", "UniformResourceLocatable", "Updatable", "UpdatableComment",
		"ReferencedSubject", "RenamedTitleSubject", "SearchResultItem"},
	"PullRequestReviewThread":  {"Node", "PullRequestTimelineItem", "PullRequestTimelineItems"},
	"PullRequestReviewComment": {"Comment", "Deletable", "Minimizable", "Node", "Reactable", "RepositoryNode", "Updatable", "UpdatableComment", "PullRequestTimelineItem"},
	"Commit":                   {"Closer", "GitObject", "Node", "Subscribable", "UniformResourceLocatable", "IssueTimelineItem", "PullRequestTimelineItem"},
	"IssueComment": {"Comment", "Deletable", "Minimizable", "Node", "Reactable", "RepositoryNode", "Updatable", "UpdatableComment", "IssueTimelineItem",
		"IssueTimelineItems", "PullRequestTimelineItem", "PullRequestTimelineItems"},
	"PullRequestReview": {"Comment", "Deletable", "Minimizable", "Node", "Reactable", "RepositoryNode", "Updatable", "UpdatableComment", "PullRequestTimelineItem",
		"PullRequestTimelineItems"},
	"Label": {"Node"},
	"Ref":   {"Node"},
	"User": {"Assignee", "AuditEntryActor", "BranchActorAllowanceActor", "Claimable", "DeploymentReviewer", "EnterpriseMember", "OrganizationOrUser",
		"ProjectV2Actor", "PushAllowanceActor", "Reactor", "RequestedReviewer", "ReviewDismissalAllowanceActor", "SearchResultItem", "Sponsor",
		"SponsorableItem", "SponsorsListingFeatureableItem", "Actor", "Node", "PackageOwner", "ProfileOwner", "ProjectOwner", "ProjectV2Owner",
		"ProjectV2Recent", "RepositoryDiscussionAuthor", "RepositoryDiscussionCommentAuthor", "RepositoryOwner", "Sponsorable", "UniformResourceLocatable"},
	"Bot": {"Assignee", "AuditEntryActor", "Actor", "Node", "UniformResourceLocatable", "Reactor", "RequestedReviewer"},
}

func implements(typ, iface string) bool {
	return slices.Contains(interfaces[typ], iface)
}

// variables are the request's variables with the operation's defaults for
// those it leaves out. JSON numbers stay float64: the fields read them with
// toInt.
func variables(op *ast.OperationDefinition, given map[string]any) map[string]any {
	vars := make(map[string]any, len(given))
	for k, v := range given {
		vars[k] = v
	}
	for _, d := range op.VariableDefinitions {
		if _, ok := vars[d.Variable]; !ok && d.DefaultValue != nil {
			if v, err := d.DefaultValue.Value(nil); err == nil {
				vars[d.Variable] = v
			}
		}
	}
	return vars
}

// arguments are a field's arguments with the variables put in.
func arguments(f *ast.Field, vars map[string]any) map[string]any {
	m := make(map[string]any, len(f.Arguments))
	for _, a := range f.Arguments {
		if v, err := a.Value.Value(vars); err == nil {
			m[a.Name] = v
		}
	}
	return m
}

// gqlErrors is err as GraphQL's errors list.
func gqlErrors(err error) any {
	var list gqlerror.List
	if errors.As(err, &list) {
		return list
	}
	var one *gqlerror.Error
	if errors.As(err, &one) {
		return gqlerror.List{one}
	}
	return []any{obj{"message": err.Error()}}
}

func (ex *gqlExec) value(v any, set ast.SelectionSet) any {
	switch x := v.(type) {
	case gqlObject:
		if x == nil {
			return nil
		}
		return ex.selectOn(x, set)
	case []gqlObject:
		out := []any{}
		for _, o := range x {
			out = append(out, ex.selectOn(o, set))
		}
		return out
	case []edge:
		out := []any{}
		for _, e := range x {
			out = append(out, ex.selectOn(e, set))
		}
		return out
	default:
		return v
	}
}

func (ex *gqlExec) fail(msg string, typ string) {
	ex.errors = append(ex.errors, obj{"type": typ, "message": msg})
}

// ---- Query and Mutation ----

type gqlQuery struct{ ex *gqlExec }

func (q *gqlQuery) typename() string { return "Query" }
func (q *gqlQuery) field(name string, args map[string]any) (any, bool) {
	s := q.ex.s
	switch name {
	case "repository":
		r := s.repos[strings.ToLower(fmt.Sprint(args["owner"])+"/"+fmt.Sprint(args["name"]))]
		if r == nil || !s.canSee(q.ex.tok, r) {
			q.ex.fail(fmt.Sprintf("Could not resolve to a Repository with the name '%v/%v'.", args["owner"], args["name"]), "NOT_FOUND")
			return nilObject(), true
		}
		return &gqlRepo{q.ex, r}, true
	case "viewer":
		var a *account
		if q.ex.tok.user != "" {
			a = s.accounts[strings.ToLower(q.ex.tok.user)]
		} else {
			a = s.botOf(s.installs[q.ex.tok.inst].appID)
		}
		return &gqlActor{q.ex, a}, true
	case "node":
		return q.ex.node(fmt.Sprint(args["id"])), true
	case "nodes":
		var out []gqlObject
		ids, _ := args["ids"].([]any)
		for _, id := range ids {
			out = append(out, q.ex.node(fmt.Sprint(id)))
		}
		return out, true
	case "rateLimit":
		return gqlMap{"RateLimit", obj{"limit": 5000, "remaining": 4999, "cost": 1, "used": 1, "nodeCount": 100, "resetAt": ts(s.now().Add(3600e9))}}, true
	}
	return nil, false
}

// nilObject is a typed nil for "null" results.
func nilObject() gqlObject { return nil }

func (ex *gqlExec) node(id string) gqlObject {
	prefix, n, ok := parseNodeID(id)
	if !ok {
		ex.fail(fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id), "NOT_FOUND")
		return nil
	}
	for _, p := range ex.s.pulls {
		r := ex.s.mustRepo(p.repo)
		if !ex.s.canSee(ex.tok, r) {
			continue
		}
		switch prefix {
		case "PR":
			if p.id == n {
				return &gqlPull{ex, r, p}
			}
		case "PRRT":
			for _, t := range p.threads {
				if t.id == n {
					return &gqlThread{ex, r, p, t}
				}
			}
		case "PRRC":
			for _, c := range p.reviewComments {
				if c.id == n {
					return &gqlComment{ex, r, p, c}
				}
			}
		}
	}
	ex.fail(fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id), "NOT_FOUND")
	return nil
}

type gqlMutation struct{ ex *gqlExec }

func (m *gqlMutation) typename() string { return "Mutation" }
func (m *gqlMutation) field(name string, args map[string]any) (any, bool) {
	switch name {
	case "resolveReviewThread", "unresolveReviewThread":
		input, _ := args["input"].(map[string]any)
		id := fmt.Sprint(input["threadId"])
		o := m.ex.node(id)
		t, ok := o.(*gqlThread)
		if !ok {
			return nilObject(), true
		}
		// GitHub gates (un)resolving a thread on Contents: write for an App
		// token; Pull requests: write alone answers FORBIDDEN (github/gh-aw#35726,
		// oven-sh/bun#40468, mergewatch/mergewatch.ai#545; API.md).
		if m.ex.tok.inst != 0 && (!m.ex.s.hasPerm(m.ex.tok, t.r, "contents", "write") || !m.ex.s.hasPerm(m.ex.tok, t.r, "pull_requests", "write")) {
			m.ex.fail("Resource not accessible by integration", "FORBIDDEN")
			return nilObject(), true
		}
		resolve := name == "resolveReviewThread"
		actor := m.ex.s.actorLogin(m.ex.tok)
		t.t.resolved = resolve
		t.t.resolvedBy = ""
		if resolve {
			t.t.resolvedBy = actor
		}
		action := "resolved"
		if !resolve {
			action = "unresolved"
		}
		m.ex.s.emitThread(t.r, t.p, t.t, action, actor)
		return gqlMap{"ResolveReviewThreadPayload", obj{"thread": t, "clientMutationId": input["clientMutationId"]}}, true
	}
	return nil, false
}

func (s *Sim) actorLogin(t *accessToken) string {
	if t.user != "" {
		return t.user
	}
	return s.botOf(s.installs[t.inst].appID).login
}

// emitThread queues pull_request_review_thread resolved/unresolved.
func (s *Sim) emitThread(r *repo, p *pull, t *thread, action, actor string) {
	var comments []any
	for _, id := range t.comments {
		for _, c := range p.reviewComments {
			if c.id == id {
				comments = append(comments, s.reviewCommentJSON(r, p, c))
			}
		}
	}
	s.emit("pull_request_review_thread", s.instID(r), obj{
		"action": action, "thread": obj{"node_id": nodeID("PRRT", t.id), "comments": comments},
		"pull_request": s.pullJSON(r, p, false), "repository": s.repoJSON(r), "sender": s.userByLogin(actor),
	})
}

// gqlMap is a plain object whose fields are in a map.
type gqlMap struct {
	name   string
	fields obj
}

func (m gqlMap) typename() string { return m.name }
func (m gqlMap) field(name string, _ map[string]any) (any, bool) {
	v, ok := m.fields[name]
	return v, ok
}

// ---- Repository, PullRequest ----

type gqlRepo struct {
	ex *gqlExec
	r  *repo
}

func (g *gqlRepo) typename() string { return "Repository" }
func (g *gqlRepo) field(name string, args map[string]any) (any, bool) {
	s := g.ex.s
	switch name {
	case "id":
		return nodeID("R", g.r.id), true
	case "databaseId":
		return g.r.id, true
	case "name":
		return g.r.name, true
	case "nameWithOwner":
		return g.r.fullName(), true
	case "isPrivate":
		return g.r.private, true
	case "url":
		return s.html("/%s", g.r.fullName()), true
	case "owner":
		return &gqlActor{g.ex, s.accounts[strings.ToLower(g.r.owner)]}, true
	case "defaultBranchRef":
		return gqlMap{"Ref", obj{"name": g.r.defaultBranch, "id": nodeID("REF", g.r.id), "prefix": "refs/heads/",
			"target": gqlMap{"Commit", obj{"oid": g.r.branches[g.r.defaultBranch]}}}}, true
	case "pullRequest":
		n, _ := toInt(args["number"])
		p := s.pulls[pullKey(g.r.fullName(), n)]
		if p == nil {
			g.ex.fail(fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n), "NOT_FOUND")
			return nilObject(), true
		}
		return &gqlPull{g.ex, g.r, p}, true
	}
	return nil, false
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	case json.Number:
		n, err := x.Int64()
		return int(n), err == nil
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

type gqlPull struct {
	ex *gqlExec
	r  *repo
	p  *pull
}

func (g *gqlPull) typename() string { return "PullRequest" }
func (g *gqlPull) field(name string, args map[string]any) (any, bool) {
	s := g.ex.s
	p := g.p
	switch name {
	case "id":
		return nodeID("PR", p.id), true
	case "databaseId", "fullDatabaseId":
		if name == "fullDatabaseId" {
			return strconv.FormatInt(p.id, 10), true
		}
		return p.id, true
	case "number":
		return p.number, true
	case "title":
		return p.title, true
	case "body":
		return p.body, true
	case "url":
		return s.html("/%s/pull/%d", g.r.fullName(), p.number), true
	case "state":
		return strings.ToUpper(p.state), true
	case "isDraft":
		return p.draft, true
	case "headRefOid":
		return p.headSHA, true
	case "baseRefOid":
		return s.baseSHA(g.r, p), true
	case "headRefName":
		return p.headRef, true
	case "baseRefName":
		return p.baseRef, true
	case "author":
		return &gqlActor{g.ex, s.ensureAccount(p.author, "User")}, true
	case "repository":
		return &gqlRepo{g.ex, g.r}, true
	case "reviewThreads":
		var items []gqlObject
		for _, t := range p.threads {
			items = append(items, &gqlThread{g.ex, g.r, p, t})
		}
		return g.ex.connection("PullRequestReviewThreadConnection", items, args), true
	case "comments":
		var items []gqlObject
		for _, c := range p.issueComments {
			items = append(items, gqlMap{"IssueComment", obj{"id": nodeID("IC", c.id), "databaseId": c.id, "fullDatabaseId": strconv.FormatInt(c.id, 10),
				"body": c.body, "createdAt": ts(c.created), "url": s.html("/%s/pull/%d#issuecomment-%d", g.r.fullName(), p.number, c.id),
				"author": &gqlActor{g.ex, s.ensureAccount(c.author, "User")}}})
		}
		return g.ex.connection("IssueCommentConnection", items, args), true
	case "reviews":
		var items []gqlObject
		for _, rv := range p.reviews {
			items = append(items, gqlMap{"PullRequestReview", obj{"id": nodeID("PRR", rv.id), "databaseId": rv.id, "fullDatabaseId": strconv.FormatInt(rv.id, 10),
				"body": rv.body, "state": rv.state, "submittedAt": ts(rv.at), "commit": gqlMap{"Commit", obj{"oid": rv.commitID}},
				"author": &gqlActor{g.ex, s.ensureAccount(rv.author, "User")}}})
		}
		return g.ex.connection("PullRequestReviewConnection", items, args), true
	case "files":
		var items []gqlObject
		for _, fd := range s.pullDiff(g.r, p) {
			ct := map[string]string{"added": "ADDED", "removed": "DELETED", "modified": "MODIFIED"}[fd.status]
			items = append(items, gqlMap{"PullRequestChangedFile", obj{"path": fd.path, "additions": fd.additions, "deletions": fd.deletions, "changeType": ct}})
		}
		return g.ex.connection("PullRequestChangedFileConnection", items, args), true
	case "labels":
		var items []gqlObject
		for _, l := range p.labels {
			items = append(items, gqlMap{"Label", obj{"name": l, "id": nodeID("LA", g.r.labels[l]), "color": "ededed"}})
		}
		return g.ex.connection("LabelConnection", items, args), true
	}
	return nil, false
}

// connection pages items Relay-style (first/after, last/before), with
// GitHub's rules: first or last is required and at most 100.
func (ex *gqlExec) connection(typ string, items []gqlObject, args map[string]any) gqlObject {
	first, hasFirst := toInt(args["first"])
	last, hasLast := toInt(args["last"])
	hasFirst, hasLast = hasFirst && args["first"] != nil, hasLast && args["last"] != nil
	field := map[string]string{"PullRequestReviewThreadConnection": "reviewThreads", "PullRequestReviewCommentConnection": "comments",
		"IssueCommentConnection": "comments", "PullRequestReviewConnection": "reviews", "PullRequestChangedFileConnection": "files",
		"LabelConnection": "labels", "ReactionConnection": "reactions"}[typ]
	switch {
	case !hasFirst && !hasLast:
		ex.fail(fmt.Sprintf("You must provide a `first` or `last` value to properly paginate the `%s` connection.", field), "MISSING_PAGINATION_BOUNDARIES")
		return nilObject()
	case hasFirst && (first > 100 || first < 0):
		ex.fail(fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `first` limit of 100 records.", first, field), "EXCESSIVE_PAGINATION")
		return nilObject()
	case hasLast && (last > 100 || last < 0):
		ex.fail(fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `last` limit of 100 records.", last, field), "EXCESSIVE_PAGINATION")
		return nilObject()
	}
	from, to := 0, len(items)
	if a, ok := args["after"].(string); ok && a != "" {
		if n, ok := decodeCursor(a); ok {
			from = n + 1
		}
	}
	if b, ok := args["before"].(string); ok && b != "" {
		if n, ok := decodeCursor(b); ok {
			to = n
		}
	}
	from, to = min(from, len(items)), max(min(to, len(items)), 0)
	if from > to {
		from = to
	}
	if hasFirst && from+first < to {
		to = from + first
	}
	if hasLast && to-last > from {
		from = to - last
	}
	page := items[from:to]
	var edges []edge
	for i, it := range page {
		edges = append(edges, edge{cursor: encodeCursor(from + i), node: it})
	}
	var start, end any
	if len(page) > 0 {
		start, end = encodeCursor(from), encodeCursor(to-1)
	}
	return gqlMap{typ, obj{
		"totalCount": len(items), "nodes": page, "edges": edges,
		"pageInfo": gqlMap{"PageInfo", obj{"hasNextPage": to < len(items), "hasPreviousPage": from > 0, "startCursor": start, "endCursor": end}},
	}}
}

type edge struct {
	cursor string
	node   gqlObject
}

func (e edge) typename() string { return "Edge" }
func (e edge) field(name string, _ map[string]any) (any, bool) {
	switch name {
	case "cursor":
		return e.cursor, true
	case "node":
		return e.node, true
	}
	return nil, false
}

func encodeCursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(i)))
}

func decodeCursor(c string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "cursor:v2:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:v2:"))
	return n, err == nil
}

// ---- threads and comments ----

type gqlThread struct {
	ex *gqlExec
	r  *repo
	p  *pull
	t  *thread
}

func (g *gqlThread) typename() string { return "PullRequestReviewThread" }

func (g *gqlThread) root() *reviewComment {
	for _, c := range g.p.reviewComments {
		if c.id == g.t.rootID {
			return c
		}
	}
	return nil
}

func (g *gqlThread) field(name string, args map[string]any) (any, bool) {
	root := g.root()
	intOrNil := func(n int) any {
		if n == 0 {
			return nil
		}
		return n
	}
	switch name {
	case "id":
		return nodeID("PRRT", g.t.id), true
	case "isResolved":
		return g.t.resolved, true
	case "isOutdated":
		return g.t.outdated, true
	case "isCollapsed":
		return g.t.resolved, true
	case "path":
		return g.t.path, true
	case "line":
		return intOrNil(root.line), true
	case "originalLine":
		return intOrNil(root.originalLine), true
	case "startLine":
		return intOrNil(root.startLine), true
	case "originalStartLine":
		return intOrNil(root.originalStart), true
	case "diffSide":
		return root.side, true
	case "startDiffSide":
		if root.startSide == "" {
			return nil, true
		}
		return root.startSide, true
	case "subjectType":
		return "LINE", true
	case "viewerCanResolve":
		return !g.t.resolved, true
	case "viewerCanUnresolve":
		return g.t.resolved, true
	case "viewerCanReply":
		return true, true
	case "resolvedBy":
		if g.t.resolvedBy == "" {
			return nilObject(), true
		}
		return &gqlActor{g.ex, g.ex.s.ensureAccount(g.t.resolvedBy, "User")}, true
	case "pullRequest":
		return &gqlPull{g.ex, g.r, g.p}, true
	case "repository":
		return &gqlRepo{g.ex, g.r}, true
	case "comments":
		var items []gqlObject
		for _, id := range g.t.comments {
			for _, c := range g.p.reviewComments {
				if c.id == id {
					items = append(items, &gqlComment{g.ex, g.r, g.p, c})
				}
			}
		}
		return g.ex.connection("PullRequestReviewCommentConnection", items, args), true
	}
	return nil, false
}

type gqlComment struct {
	ex *gqlExec
	r  *repo
	p  *pull
	c  *reviewComment
}

func (g *gqlComment) typename() string { return "PullRequestReviewComment" }
func (g *gqlComment) field(name string, args map[string]any) (any, bool) {
	s := g.ex.s
	c := g.c
	switch name {
	case "id":
		return nodeID("PRRC", c.id), true
	case "databaseId":
		return c.id, true
	case "fullDatabaseId":
		return strconv.FormatInt(c.id, 10), true
	case "body":
		return c.body, true
	case "bodyText":
		return c.body, true
	case "path":
		return c.path, true
	case "url":
		return s.html("/%s/pull/%d#discussion_r%d", g.r.fullName(), g.p.number, c.id), true
	case "createdAt":
		return ts(c.created), true
	case "updatedAt":
		return ts(c.updated), true
	case "outdated":
		return c.line == 0, true
	case "line":
		if c.line == 0 {
			return nil, true
		}
		return c.line, true
	case "originalLine":
		return c.originalLine, true
	case "diffHunk":
		return c.diffHunk, true
	case "state":
		return "SUBMITTED", true
	case "author":
		return &gqlActor{g.ex, s.ensureAccount(c.author, "User")}, true
	case "commit":
		return gqlMap{"Commit", obj{"oid": c.commitID}}, true
	case "originalCommit":
		return gqlMap{"Commit", obj{"oid": c.originalCommit}}, true
	case "replyTo":
		if c.inReplyTo == 0 {
			return nilObject(), true
		}
		for _, o := range g.p.reviewComments {
			if o.id == c.inReplyTo {
				return &gqlComment{g.ex, g.r, g.p, o}, true
			}
		}
		return nilObject(), true
	case "pullRequest":
		return &gqlPull{g.ex, g.r, g.p}, true
	case "reactions":
		return g.gqlReactions(args), true
	case "pullRequestReview":
		return gqlMap{"PullRequestReview", obj{"id": nodeID("PRR", c.reviewID), "databaseId": c.reviewID, "fullDatabaseId": strconv.FormatInt(c.reviewID, 10)}}, true
	}
	return nil, false
}

type gqlActor struct {
	ex *gqlExec
	a  *account
}

func (g *gqlActor) typename() string {
	if g.a.typ == "Organization" {
		return "Organization"
	}
	return g.a.typ
}

func (g *gqlActor) field(name string, _ map[string]any) (any, bool) {
	switch name {
	case "login":
		return g.a.login, true
	case "id":
		return nodeID(map[string]string{"User": "U", "Bot": "BOT", "Organization": "O"}[g.a.typ], g.a.id), true
	case "databaseId":
		return g.a.id, true
	case "url":
		return g.ex.s.html("/%s", g.a.login), true
	case "avatarUrl":
		return g.ex.s.base + "/avatars/" + g.a.login, true
	case "name":
		return g.a.name, true
	}
	return nil, false
}
