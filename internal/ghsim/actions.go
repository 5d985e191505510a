package ghsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ---- check runs ----

func hCreateCheckRun(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "checks", "write") {
		return
	}
	if c.tok.inst == 0 {
		c.fail(http.StatusForbidden, "You must authenticate via a GitHub App.")
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	if in.Name == nil || in.HeadSHA == nil || *in.Name == "" {
		c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\n\"name\", \"head_sha\" weren't supplied.")
		return
	}
	if _, ok := r.commits[*in.HeadSHA]; !ok {
		c.fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+*in.HeadSHA)
		return
	}
	cr := &checkRun{id: c.s.id(), repo: r.fullName(), appID: c.s.installs[c.tok.inst].appID, status: "queued", started: c.s.now()}
	if msg := c.s.applyCheckInput(cr, &in); msg != "" {
		c.fail(http.StatusUnprocessableEntity, msg)
		return
	}
	c.s.checks[cr.id] = cr
	c.json(http.StatusCreated, c.s.checkRunJSON(r, cr))
}

type checkRunInput struct {
	Name        *string `json:"name"`
	HeadSHA     *string `json:"head_sha"`
	DetailsURL  *string `json:"details_url"`
	ExternalID  *string `json:"external_id"`
	Status      *string `json:"status"`
	Conclusion  *string `json:"conclusion"`
	StartedAt   *string `json:"started_at"`
	CompletedAt *string `json:"completed_at"`
	Output      *struct {
		Title       *string `json:"title"`
		Summary     *string `json:"summary"`
		Text        *string `json:"text"`
		Annotations []any   `json:"annotations"`
	} `json:"output"`
}

func (s *Sim) applyCheckInput(cr *checkRun, in *checkRunInput) string {
	if in.Name != nil {
		cr.name = *in.Name
	}
	if in.HeadSHA != nil {
		cr.headSHA = *in.HeadSHA
	}
	if in.DetailsURL != nil {
		cr.detailsURL = *in.DetailsURL
	}
	if in.ExternalID != nil {
		cr.externalID = *in.ExternalID
	}
	if in.Status != nil {
		cr.status = *in.Status
	}
	if in.Conclusion != nil {
		cr.conclusion = *in.Conclusion
		cr.status = "completed"
	}
	if cr.status == "completed" && cr.conclusion == "" {
		return "Invalid request.\n\nWhen the status is 'completed', a conclusion must be supplied."
	}
	if cr.status == "completed" && cr.completed.IsZero() {
		cr.completed = s.now()
	}
	if o := in.Output; o != nil {
		if o.Title != nil {
			cr.title = *o.Title
		}
		if o.Summary != nil {
			cr.summary = *o.Summary
		}
		if o.Text != nil {
			cr.text = *o.Text
		}
		if len(o.Annotations) > 50 {
			return "Invalid request.\n\nNo more than 50 annotations are allowed per request."
		}
		cr.annotations += len(o.Annotations)
		if len(cr.summary) > 65535 || len(cr.text) > 65535 {
			return "Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied."
		}
	}
	return ""
}

func (c *reqCtx) checkRun(r *repo) *checkRun {
	id, _ := strconv.ParseInt(c.v("check_run_id"), 10, 64)
	cr := c.s.checks[id]
	if cr == nil || cr.repo != r.fullName() {
		c.notFound()
		return nil
	}
	return cr
}

func hUpdateCheckRun(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "checks", "write") {
		return
	}
	cr := c.checkRun(r)
	if cr == nil {
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	if c.s.installs[c.tok.inst] == nil || c.s.installs[c.tok.inst].appID != cr.appID {
		c.fail(http.StatusForbidden, "Invalid app_id `"+strconv.FormatInt(cr.appID, 10)+"` - check run can only be modified by the GitHub App that created it.")
		return
	}
	if msg := c.s.applyCheckInput(cr, &in); msg != "" {
		c.fail(http.StatusUnprocessableEntity, msg)
		return
	}
	c.json(http.StatusOK, c.s.checkRunJSON(r, cr))
}

func hGetCheckRun(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	if cr := c.checkRun(r); cr != nil {
		c.json(http.StatusOK, c.s.checkRunJSON(r, cr))
	}
}

func hListCheckRuns(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	sha := c.s.resolve(r, c.v("ref"))
	name := c.r.URL.Query().Get("check_name")
	// filter defaults to "latest": only the newest run of each name is
	// listed; "all" lists every run (OpenAPI: checks/list-for-ref, "filter",
	// enum latest|all, default latest). See API.md.
	filter := c.r.URL.Query().Get("filter")
	switch filter {
	case "":
		filter = "latest"
	case "latest", "all":
	default:
		c.fail(http.StatusUnprocessableEntity, "Validation Failed", obj{"resource": "CheckRun", "field": "filter", "code": "invalid"})
		return
	}
	seen := map[string]bool{}
	var items []any
	for _, cr := range c.s.sortedChecks() {
		if cr.repo == r.fullName() && cr.headSHA == sha && (name == "" || cr.name == name) {
			if filter == "latest" && seen[cr.name] {
				continue
			}
			seen[cr.name] = true
			items = append(items, c.s.checkRunJSON(r, cr))
		}
	}
	total := len(items)
	c.json(http.StatusOK, obj{"total_count": total, "check_runs": c.paginate(items)})
}

func (s *Sim) sortedChecks() []*checkRun {
	var out []*checkRun
	for _, cr := range s.checks {
		out = append(out, cr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id > out[j].id })
	return out
}

// RerequestCheckRun sends check_run rerequested for check run id, as when a
// user clicks "Re-run" on GitHub.
func (s *Sim) RerequestCheckRun(id int64, actor string) {
	s.mu.Lock()
	cr := s.checks[id]
	if cr == nil {
		s.mu.Unlock()
		panic(fmt.Sprintf("ghsim: no check run %d", id))
	}
	if cr.status != "completed" {
		s.mu.Unlock()
		panic("ghsim: only a completed check run can be re-requested")
	}
	r := s.mustRepo(cr.repo)
	s.emit("check_run", s.instID(r), obj{"action": "rerequested", "check_run": s.checkRunHookJSON(r, cr), "repository": s.repoJSON(r),
		"sender": s.userByLogin(actor)})
	s.mu.Unlock()
	s.flush()
}

// checkRunHookJSON is the check run shape of check_run webhooks.
func (s *Sim) checkRunHookJSON(r *repo, cr *checkRun) obj {
	m := s.checkRunJSON(r, cr)
	if cr.detailsURL == "" {
		m["details_url"] = m["html_url"]
	}
	if app, ok := m["app"].(obj); ok {
		delete(app, "installations_count")
		delete(app, "client_id")
	}
	prs := m["pull_requests"]
	m["check_suite"] = obj{"id": cr.id + 500000, "node_id": nodeID("CS", cr.id), "head_branch": nil, "head_sha": cr.headSHA,
		"status": cr.status, "conclusion": nullIfEmpty(cr.conclusion), "url": s.api("/repos/%s/check-suites/%d", r.fullName(), cr.id+500000),
		"before": nil, "after": cr.headSHA, "pull_requests": prs, "app": m["app"], "created_at": ts(cr.started), "updated_at": ts(cr.started)}
	return m
}

// ---- workflow runs ----

// WorkflowRun is a dispatched Actions run, as handed to OnDispatch.
type WorkflowRun struct {
	ID         int64
	Repo       string // owner/name
	RepoID     int64
	Workflow   string // file name, e.g. chakshu.yml
	Ref        string // branch
	SHA        string // the ref's head at dispatch
	Inputs     map[string]any
	RunNumber  int
	RunAttempt int
	Actor      string
	// HTMLURL is the run's page.
	HTMLURL string
	// DisplayTitle is the workflow's run-name with the inputs filled in.
	DisplayTitle string
	// IDTokenRequestURL and IDTokenRequestToken are ACTIONS_ID_TOKEN_REQUEST_URL
	// and ACTIONS_ID_TOKEN_REQUEST_TOKEN for this run: GET URL+"&audience=X"
	// with "Authorization: bearer TOKEN" answers {"value": "<jwt>"}.
	IDTokenRequestURL   string
	IDTokenRequestToken string
	Status              string
	Conclusion          string
}

// OnDispatch registers f to be called (in its own goroutine) for every
// workflow_dispatch that starts a run.
func (s *Sim) OnDispatch(f func(WorkflowRun)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onDisp = append(s.onDisp, f)
}

func (s *Sim) runInfo(w *workflowRun) WorkflowRun {
	r := s.mustRepo(w.repo)
	inputs := map[string]any{}
	for k, v := range w.inputs {
		inputs[k] = v
	}
	return WorkflowRun{ID: w.id, Repo: w.repo, RepoID: r.id, Workflow: w.workflow, Ref: w.ref, SHA: w.sha, Inputs: inputs,
		RunNumber: w.runNumber, RunAttempt: w.attempt, Actor: w.actor, HTMLURL: s.html("/%s/actions/runs/%d", w.repo, w.id),
		IDTokenRequestURL: fmt.Sprintf("%s/_actions/idtoken/%d?api-version=2.0", s.base, w.id), IDTokenRequestToken: w.idToken,
		Status: w.status, Conclusion: w.conclusion, DisplayTitle: w.displayName}
}

// Run returns the workflow run id.
func (s *Sim) Run(id int64) (WorkflowRun, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.runs[id]
	if w == nil {
		return WorkflowRun{}, false
	}
	return s.runInfo(w), true
}

// Runs lists every workflow run, oldest first.
func (s *Sim) Runs() []WorkflowRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []WorkflowRun
	for _, w := range s.runs {
		out = append(out, s.runInfo(w))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func hDispatch(c *reqCtx) {
	r := c.repo()
	if r == nil {
		return
	}
	if c.tok.inst != 0 && !c.s.hasPerm(c.tok, r, "actions", "write") {
		c.fail(http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails *bool          `json:"return_run_details"`
	}
	if !c.decode(&in) {
		return
	}
	if c.s.opts.EnterpriseVersion != "" && in.ReturnRunDetails != nil {
		// Enterprise Server has no return_run_details (github.com since
		// 2026-02-19): benc-uk/workflow-dispatch#86 on GHES 3.19.
		c.fail(http.StatusUnprocessableEntity, `"return_run_details" is not a permitted key.`)
		return
	}
	file := c.v("workflow_id")
	ref := strings.TrimPrefix(in.Ref, "refs/heads/")
	sha := r.branches[ref]
	if sha == "" {
		c.fail(http.StatusUnprocessableEntity, "No ref found for: "+in.Ref)
		return
	}
	if _, ok := r.commits[sha].files[".github/workflows/"+file]; !ok {
		c.notFound()
		return
	}
	trigger, declared := dispatchOn(r.commits[sha].files[".github/workflows/"+file])
	if !trigger {
		// GitHub refuses to dispatch a workflow whose `on` lacks
		// workflow_dispatch (benc-uk/workflow-dispatch#46, #81;
		// fcetool/fcetool#1 quotes the whole answer).
		c.fail(http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger")
		return
	}
	if bad := unexpected(declared, in.Inputs); len(bad) > 0 {
		// GitHub refuses an input the workflow does not declare under
		// on.workflow_dispatch.inputs (convictional/trigger-workflow-and-wait#4,
		// benc-uk/workflow-dispatch#80).
		quoted, _ := json.Marshal(bad)
		c.fail(http.StatusUnprocessableEntity, "Unexpected inputs provided: "+strings.ReplaceAll(string(quoted), ",", ", "))
		return
	}
	if len(in.Inputs) > 25 {
		c.fail(http.StatusUnprocessableEntity, "you may only define up to 25 `inputs` for a `workflow_dispatch` event")
		return
	}
	if n := inputsPayload(in.Inputs); n > maxInputsPayload {
		c.fail(http.StatusUnprocessableEntity, fmt.Sprintf("inputs are too large: %d characters, the maximum is %d", n, maxInputsPayload))
		return
	}
	n := 1
	for _, w := range c.s.runs {
		if w.repo == r.fullName() && w.workflow == file {
			n++
		}
	}
	actor := c.actor()
	w := &workflowRun{id: c.s.id(), repo: r.fullName(), workflow: file, workflowID: workflowID(r, file), ref: ref, sha: sha,
		inputs: in.Inputs, status: "queued", runNumber: n, attempt: 1, actor: actor.login, created: c.s.now(), updated: c.s.now(),
		idToken: "ghsim-idtok-" + randAlnum(32), installID: c.tok.inst,
		displayName: runName(r.commits[sha].files[".github/workflows/"+file], in.Inputs)}
	c.s.runs[w.id] = w
	info := c.s.runInfo(w)
	for _, f := range c.s.onDisp {
		go f(info)
	}
	if in.ReturnRunDetails == nil || !*in.ReturnRunDetails {
		c.w.WriteHeader(http.StatusNoContent)
		return
	}
	c.json(http.StatusOK, obj{"workflow_run_id": w.id, "run_url": c.s.api("/repos/%s/actions/runs/%d", r.fullName(), w.id),
		"html_url": info.HTMLURL})
}

func workflowID(r *repo, file string) int64 {
	var h int64
	for _, ch := range r.fullName() + "/" + file {
		h = h*31 + int64(ch)
	}
	if h < 0 {
		h = -h
	}
	return h%1_000_000_000 + 1
}

// hasPerm reports whether the token's installation (or user) holds perm at level.
func (s *Sim) hasPerm(t *accessToken, r *repo, perm, level string) bool {
	if t == nil {
		return false
	}
	if t.inst != 0 {
		// A narrowed token holds what it was minted with, and never more
		// than the installation has now.
		if t.perms != nil && !permAtLeast(t.perms[perm], level) {
			return false
		}
		return permAtLeast(s.installs[t.inst].perms[perm], level)
	}
	p := s.permission(r, t.user)
	if level == "read" {
		return p != "none"
	}
	return permRank[p] >= permRank["write"]
}

// permAtLeast reports whether an App permission level have covers want
// (admin > write > read).
func permAtLeast(have, want string) bool {
	return have == "admin" || have == "write" && want != "admin" || have == "read" && want == "read"
}

func (s *Sim) workflowRunJSON(r *repo, w *workflowRun) obj {
	u := s.api("/repos/%s/actions/runs/%d", r.fullName(), w.id)
	cm := r.commits[w.sha]
	author := s.ensureAccount(firstNonEmpty(cm.author, r.owner), "User")
	return obj{
		"id": w.id, "name": "Chakshu", "node_id": nodeID("WFR", w.id), "head_branch": w.ref, "head_sha": w.sha,
		"path": ".github/workflows/" + w.workflow, "display_title": firstNonEmpty(w.displayName, "Chakshu"), "run_number": w.runNumber,
		"run_attempt": w.attempt, "event": "workflow_dispatch", "status": w.status, "conclusion": nullIfEmpty(w.conclusion),
		"workflow_id": w.workflowID, "check_suite_id": w.id + 7000000, "check_suite_node_id": nodeID("CS", w.id),
		"url": u, "html_url": s.html("/%s/actions/runs/%d", r.fullName(), w.id), "pull_requests": []any{},
		"created_at": ts(w.created), "updated_at": ts(w.updated), "run_started_at": ts(w.created),
		"actor": s.userByLogin(w.actor), "triggering_actor": s.userByLogin(w.actor),
		"jobs_url": u + "/jobs", "logs_url": u + "/logs", "check_suite_url": s.api("/repos/%s/check-suites/%d", r.fullName(), w.id+7000000),
		"artifacts_url": u + "/artifacts", "cancel_url": u + "/cancel", "rerun_url": u + "/rerun", "previous_attempt_url": nil,
		"workflow_url": s.api("/repos/%s/actions/workflows/%d", r.fullName(), w.workflowID),
		"head_commit": obj{"id": w.sha, "tree_id": mustTreeSHA(cm), "message": cm.message, "timestamp": ts(cm.at),
			"author": obj{"name": author.name, "email": author.email}, "committer": obj{"name": author.name, "email": author.email}},
		"repository": s.minimalRepoJSON(r), "head_repository": s.minimalRepoJSON(r),
	}
}

func mustTreeSHA(c *commit) string {
	shas, _ := trees(c.files)
	return shas[""]
}

func (c *reqCtx) run(r *repo) *workflowRun {
	id, _ := strconv.ParseInt(c.v("run_id"), 10, 64)
	w := c.s.runs[id]
	if w == nil || w.repo != r.fullName() {
		c.notFound()
		return nil
	}
	return w
}

func hGetRun(c *reqCtx) {
	r := c.repo()
	// "Get a workflow run": fine-grained and App tokens need Actions: read
	// (REST docs, "Fine-grained access tokens for Get a workflow run").
	if r == nil || !c.need(r, "actions", "read") {
		return
	}
	if w := c.run(r); w != nil {
		c.json(http.StatusOK, c.s.workflowRunJSON(r, w))
	}
}

func hCancelRun(c *reqCtx) {
	r := c.repo()
	if r == nil || !c.need(r, "actions", "write") {
		return
	}
	w := c.run(r)
	if w == nil {
		return
	}
	if w.status == "completed" {
		c.fail(http.StatusConflict, "Cannot cancel a workflow run that is completed.")
		return
	}
	c.s.completeRun(w, "cancelled")
	c.json(http.StatusAccepted, obj{})
}

// StartRun marks run id in_progress (the simulated runner picked it up).
func (s *Sim) StartRun(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.runs[id]; w != nil && w.status == "queued" {
		w.status = "in_progress"
		w.updated = s.now()
	}
}

// CompleteRun completes run id with conclusion (success, failure,
// cancelled, timed_out…) and sends workflow_run completed.
func (s *Sim) CompleteRun(id int64, conclusion string) {
	s.mu.Lock()
	w := s.runs[id]
	if w == nil {
		s.mu.Unlock()
		panic(fmt.Sprintf("ghsim: no workflow run %d", id))
	}
	s.completeRun(w, conclusion)
	s.mu.Unlock()
	s.flush()
}

func (s *Sim) completeRun(w *workflowRun, conclusion string) {
	w.status = "completed"
	w.conclusion = conclusion
	w.updated = s.now()
	r := s.mustRepo(w.repo)
	s.emit("workflow_run", w.installID, obj{
		"action": "completed", "workflow_run": s.workflowRunJSON(r, w), "repository": s.repoJSON(r),
		"sender": s.userByLogin(w.actor),
		"workflow": obj{"id": w.workflowID, "node_id": nodeID("W", w.workflowID), "name": "Chakshu", "path": ".github/workflows/" + w.workflow,
			"state": "active", "created_at": ts(r.created), "updated_at": ts(r.created), "url": s.api("/repos/%s/actions/workflows/%d", r.fullName(), w.workflowID),
			"html_url": s.html("/%s/blob/%s/.github/workflows/%s", r.fullName(), r.defaultBranch, w.workflow), "badge_url": s.html("/%s/workflows/Chakshu/badge.svg", r.fullName())},
	})
}

// dispatchOn reads a workflow's `on` once: whether it names
// workflow_dispatch, in any of its three forms (`on: workflow_dispatch`, a
// list of events, a map of events), and the inputs it declares under
// on.workflow_dispatch.inputs. A file that does not parse has neither.
func dispatchOn(workflow string) (trigger bool, declared map[string]bool) {
	declared = map[string]bool{}
	var wf struct {
		On yaml.Node `yaml:"on"`
	}
	if yaml.Unmarshal([]byte(workflow), &wf) != nil {
		return false, declared
	}
	switch wf.On.Kind {
	case yaml.ScalarNode:
		trigger = wf.On.Value == "workflow_dispatch"
	case yaml.SequenceNode:
		for _, n := range wf.On.Content {
			trigger = trigger || n.Value == "workflow_dispatch"
		}
	case yaml.MappingNode:
		for i := 0; i < len(wf.On.Content); i += 2 {
			trigger = trigger || wf.On.Content[i].Value == "workflow_dispatch"
		}
		var on struct {
			Dispatch struct {
				Inputs map[string]any `yaml:"inputs"`
			} `yaml:"workflow_dispatch"`
		}
		if wf.On.Decode(&on) == nil {
			for name := range on.Dispatch.Inputs {
				declared[name] = true
			}
		}
	}
	return trigger, declared
}

// unexpected are the names of inputs not declared, sorted: every input when
// the workflow declares none.
func unexpected(declared map[string]bool, inputs map[string]any) []string {
	var bad []string
	for name := range inputs {
		if !declared[name] {
			bad = append(bad, name)
		}
	}
	sort.Strings(bad)
	return bad
}

// maxInputsPayload is GitHub's limit on a dispatch's inputs: "The maximum
// payload for inputs is 65,535 characters" (docs "Workflow syntax for GitHub
// Actions", on.workflow_dispatch.inputs). GitHub does not say how it counts
// them; ghsim counts the inputs object as JSON.
const maxInputsPayload = 65535

// inputsPayload is the size of inputs as ghsim counts it against maxInputsPayload.
func inputsPayload(inputs map[string]any) int {
	b, _ := json.Marshal(inputs)
	return len([]rune(string(b)))
}

var (
	runNameLine = regexp.MustCompile(`(?m)^run-name:\s*(.+?)\s*$`)
	// inputExpr is `${{ inputs.a }}` or `${{ inputs.a || inputs.b … }}`.
	inputExpr = regexp.MustCompile(`\$\{\{\s*(inputs\.[A-Za-z0-9_-]+(?:\s*\|\|\s*inputs\.[A-Za-z0-9_-]+)*)\s*\}\}`)
	inputName = regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`)
)

// runName is the workflow's run-name with its inputs expressions filled in, as
// GitHub shows a run's display_title ("" when the workflow has none).
func runName(workflow string, inputs map[string]any) string {
	m := runNameLine.FindStringSubmatch(workflow)
	if m == nil {
		return ""
	}
	return FillInputs(strings.Trim(m[1], `"'`), inputs)
}

// FillInputs replaces the ${{ inputs.x }} expressions of s by a run's inputs
// (an input not given reads as empty, as in Actions): a run's name here, and
// the sandbox's checkout of a workflow's steps. `inputs.a || inputs.b` is the
// first that is not empty: `||` gives an operand's value, and "" is falsy
// (docs "Evaluate expressions in workflows and actions", Operators).
func FillInputs(s string, inputs map[string]any) string {
	return inputExpr.ReplaceAllStringFunc(s, func(e string) string {
		for _, m := range inputName.FindAllStringSubmatch(inputExpr.FindStringSubmatch(e)[1], -1) {
			if v, ok := inputs[m[1]]; ok && fmt.Sprint(v) != "" {
				return fmt.Sprint(v)
			}
		}
		return ""
	})
}
