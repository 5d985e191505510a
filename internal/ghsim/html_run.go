package ghsim

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

// The Actions run page shows the runner's log as it is written: the page
// carries what the log holds when it is served, and log.js asks the log
// endpoint for the rest until the run completes (GitHub streams a running
// job's log into its run page the same way). The log stays readable after
// the run.

var runTmpl = template.Must(template.New("run").Parse(`<h1>{{.Title}}</h1>
<p><code>{{.Workflow}}</code> on <code>{{.Ref}}</code> at <code>{{.SHA}}</code> · run #{{.RunNumber}} attempt {{.RunAttempt}}
 · <a href="{{.RepoURL}}">{{.Repo}}</a></p>
<p>Status: <span id="run-status" class="tag {{.Conclusion}}">{{.Status}}{{if .Conclusion}} · {{.Conclusion}}{{end}}</span></p>
{{if .Inputs}}<details><summary>Inputs</summary><table class="diff">{{range $k, $v := .Inputs}}<tr><td class="num">{{$k}}</td><td class="code">{{$v}}</td></tr>{{end}}</table></details>{{end}}
<h2>review</h2>
<pre class="log" id="log" aria-label="Job log" aria-live="polite" data-src="{{.LogURL}}" data-offset="{{.Offset}}" data-status="{{.Status}}">{{.Log}}</pre>
{{if not .HasLog}}<p class="meta" id="no-log">The runner has written no log for this run{{if ne .Status "completed"}} yet{{end}}.</p>{{end}}`))

type runView struct {
	WorkflowRun
	Title, Status, Conclusion, Repo, RepoURL, LogURL string
	Log                                              string
	Offset                                           int
	HasLog                                           bool
}

// runLogBytes is what the run's log holds so far: while the run goes on,
// its complete lines only (a line being written is shown once it ends).
func (s *Sim) runLogBytes(id int64, completed bool) []byte {
	if s.opts.RunLog == nil {
		return nil
	}
	b, err := s.opts.RunLog(id)
	if err != nil {
		return nil
	}
	if !completed {
		b = b[:bytes.LastIndexByte(b, '\n')+1]
	}
	return b
}

// displayLog is log[from:] as GitHub shows a job's log: the workflow
// command ::add-mask::VALUE is not shown and VALUE is replaced by *** in
// every line (docs.github.com/actions/reference/workflow-commands-for-github-actions,
// "Masking a value in a log"); ::error::MSG shows as "Error: MSG".
func displayLog(log []byte, from int) string {
	var masks []string
	for _, l := range strings.Split(string(log), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "::add-mask::"); ok && v != "" {
			masks = append(masks, v)
		}
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(log[from:]), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "::add-mask::") {
			continue
		}
		if m, ok := strings.CutPrefix(l, "::error::"); ok {
			l = "Error: " + m
		}
		for _, v := range masks {
			l = strings.ReplaceAll(l, v, "***")
		}
		b.WriteString(l)
	}
	return b.String()
}

// runForPage is run id when it belongs to the request's repository.
func (s *Sim) runForPage(r *http.Request) (WorkflowRun, string, string, bool) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	w := s.runs[id]
	var run WorkflowRun
	var status, conclusion string
	if w != nil {
		run, status, conclusion = s.runInfo(w), w.status, w.conclusion
	}
	s.mu.Unlock()
	if w == nil || !strings.EqualFold(run.Repo, r.PathValue("owner")+"/"+r.PathValue("repo")) {
		return WorkflowRun{}, "", "", false
	}
	return run, status, conclusion, true
}

func (s *Sim) pageRun(w http.ResponseWriter, r *http.Request) {
	run, status, conclusion, ok := s.runForPage(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	log := s.runLogBytes(run.ID, status == "completed")
	// GitHub heads a run's page with its display title (the run-name).
	title := run.Workflow
	switch dn, ok := run.Inputs["run_id"]; {
	case run.DisplayTitle != "":
		title = run.DisplayTitle
	case ok:
		title = "Chakshu review · run " + strings.TrimSpace(stringOf(dn))
	}
	v := runView{WorkflowRun: run, Title: title, Status: status, Conclusion: conclusion, Repo: run.Repo,
		RepoURL: s.html("/%s", run.Repo), LogURL: s.html("/%s/actions/runs/%d/log", run.Repo, run.ID),
		Log: displayLog(log, 0), Offset: len(log), HasLog: len(log) > 0}
	renderScript(w, "Run "+strconv.FormatInt(run.ID, 10), "log.js", runTmpl, v)
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// runLog answers what the log holds after byte offset, the run's status and
// the offset to ask from next.
func (s *Sim) runLog(w http.ResponseWriter, r *http.Request) {
	run, status, conclusion, ok := s.runForPage(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	// The status was read before the log: a run seen completed has written all of it.
	log := s.runLogBytes(run.ID, status == "completed")
	off, err := strconv.Atoi(r.URL.Query().Get("offset"))
	if err != nil || off < 0 || off > len(log) {
		off = len(log)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"log": displayLog(log, off), "next": len(log), "status": status, "conclusion": conclusion})
}

var checkTmpl = template.Must(template.New("check").Parse(`<h1>{{.Name}}</h1>
<p><span class="tag {{.Conclusion}}">{{.Status}}{{if .Conclusion}} · {{.Conclusion}}{{end}}</span> on <code>{{.HeadSHA}}</code>
{{if .DetailsURL}}· <a href="{{.DetailsURL}}">Details</a>{{end}}</p>
<div class="box"><div class="box-body">{{if .Title}}<h2>{{.Title}}</h2>{{end}}<div class="markdown-body">{{.Summary}}</div>
{{if .Text}}<hr><div class="markdown-body">{{.Text}}</div>{{end}}</div></div>`))

// checkView is a check run with its summary and text rendered as GitHub
// renders them (Markdown). Called with s.mu held.
func (s *Sim) checkView(c *checkRun) checkView {
	return checkView{ID: c.id, Name: c.name, HeadSHA: c.headSHA, Status: c.status, Conclusion: c.conclusion, DetailsURL: c.detailsURL,
		URL: s.html("/%s/runs/%d", c.repo, c.id), Title: c.title, Summary: renderMarkdown(c.summary, nil), Text: renderMarkdown(c.text, nil)}
}

func (s *Sim) pageCheck(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	c := s.checks[id]
	var cv checkView
	if c != nil {
		cv = s.checkView(c)
	}
	s.mu.Unlock()
	if c == nil {
		http.NotFound(w, r)
		return
	}
	render(w, cv.Name, checkTmpl, cv)
}
