package ghsim

import (
	"html/template"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The simulator's "github.com" pages: enough for a sandbox user to see a PR
// as GitHub would show it (conversation, reviews with inline threads, check
// runs) and to comment on it. html_url fields in API answers point here.

func (s *Sim) htmlMux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /sim/{$}", s.pageIndex)
	m.HandleFunc("GET /sim/{owner}/{repo}", s.pageRepo)
	m.HandleFunc("GET /sim/{owner}/{repo}/pull/{n}", s.pagePull)
	m.HandleFunc("GET /sim/{owner}/{repo}/commit/{sha}", s.pageCommit)
	m.HandleFunc("POST /sim/{owner}/{repo}/pull/{n}/comment", s.postComment)
	m.HandleFunc("GET /sim/{owner}/{repo}/actions/runs/{id}", s.pageRun)
	m.HandleFunc("GET /sim/{owner}/{repo}/runs/{id}", s.pageCheck)
	return m
}

func (s *Sim) serveHTML(w http.ResponseWriter, r *http.Request) {
	s.count(r.Method + " /sim")
	s.htmlOnce.Do(func() { s.pages = s.htmlMux() })
	s.pages.ServeHTTP(w, r)
}

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"time": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Title}} · ghsim</title>
<style>
body{font:14px/1.5 system-ui,sans-serif;max-width:980px;margin:1em auto;padding:0 1em;color:#1f2328}
a{color:#0969da} .box{border:1px solid #d0d7de;border-radius:6px;margin:.8em 0;padding:.6em .9em}
.meta{color:#656d76;font-size:12px} pre{background:#f6f8fa;padding:.5em;overflow:auto;white-space:pre-wrap}
.thread{border-left:3px solid #d0d7de;padding-left:.7em;margin:.5em 0} .tag{border-radius:2em;padding:0 .5em;font-size:12px;background:#eaeef2}
.success{background:#dafbe1}.failure{background:#ffebe9} textarea{width:100%;min-height:5em} h1{font-size:22px}
</style></head><body>
<p class="meta"><a href="/sim/">ghsim</a> — simulated GitHub</p>
{{.Body}}
</body></html>`))

type page struct {
	Title string
	Body  template.HTML
}

func render(w http.ResponseWriter, title string, t *template.Template, data any) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		http.Error(w, "template error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, page{Title: title, Body: template.HTML(b.String())})
}

var indexTmpl = template.Must(template.New("index").Parse(`<h1>Repositories</h1>
{{range .}}<div class="box"><a href="/sim/{{.}}">{{.}}</a></div>{{else}}<p>No repositories.</p>{{end}}`))

func (s *Sim) pageIndex(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var names []string
	for _, rp := range s.repos {
		names = append(names, rp.fullName())
	}
	s.mu.Unlock()
	sort.Strings(names)
	render(w, "Repositories", indexTmpl, names)
}

var repoTmpl = template.Must(template.New("repo").Parse(`<h1>{{.Name}}</h1>
<p class="meta">default branch <b>{{.Default}}</b></p>
<h2>Pull requests</h2>
{{range .Pulls}}<div class="box"><a href="{{.URL}}">#{{.Number}} {{.Title}}</a> <span class="tag">{{.State}}</span> <span class="meta">by {{.Author}}</span></div>{{else}}<p>None.</p>{{end}}
<h2>Branches</h2><ul>{{range .Branches}}<li>{{.}}</li>{{end}}</ul>`))

func (s *Sim) pageRepo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	if rp == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	type pl struct {
		Number            int
		Title, State, URL string
		Author            string
	}
	data := struct {
		Name, Default string
		Pulls         []pl
		Branches      []string
	}{Name: rp.fullName(), Default: rp.defaultBranch, Branches: sortedKeys(rp.branches)}
	for _, p := range s.sortedPulls(rp) {
		data.Pulls = append(data.Pulls, pl{p.number, p.title, p.state, s.html("/%s/pull/%d", rp.fullName(), p.number), p.author})
	}
	s.mu.Unlock()
	render(w, rp.fullName(), repoTmpl, data)
}

var commitTmpl = template.Must(template.New("commit").Parse(`<h1>{{.Message}}</h1>
<p class="meta"><a href="{{.RepoURL}}">{{.Repo}}</a> · <b>{{.Author}}</b> committed {{.At}} · commit <code>{{.SHA}}</code>
{{range .Parents}} · parent <a href="{{.URL}}"><code>{{.Short}}</code></a>{{end}}</p>
<h2>{{len .Files}} changed file(s)</h2>
{{range .Files}}<div class="box"><p><code>{{.Path}}</code> <span class="tag">{{.Status}}</span></p>{{if .Patch}}<pre>{{.Patch}}</pre>{{end}}</div>{{else}}<p>No changes.</p>{{end}}`))

// pageCommit shows one commit (a sha or a unique prefix) and its changes
// against its first parent, as GitHub's commit page does; the portal links
// a reviewer's synced commit here.
func (s *Sim) pageCommit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	var c *commit
	if rp != nil {
		if sha := r.PathValue("sha"); len(sha) >= 7 {
			c = rp.commits[s.resolve(rp, sha)]
		}
	}
	if c == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	type parent struct{ Short, URL string }
	type file struct{ Path, Status, Patch string }
	data := struct {
		Repo, RepoURL, SHA, Message, Author, At string
		Parents                                 []parent
		Files                                   []file
	}{Repo: rp.fullName(), RepoURL: s.html("/%s", rp.fullName()), SHA: c.sha, Message: c.message,
		Author: c.author, At: c.at.UTC().Format("2006-01-02 15:04:05Z")}
	var base map[string]string
	for i, p := range c.parents {
		data.Parents = append(data.Parents, parent{p[:7], s.html("/%s/commit/%s", rp.fullName(), p)})
		if i == 0 {
			base = rp.commits[p].files
		}
	}
	for _, fd := range diffTrees(base, c.files) {
		data.Files = append(data.Files, file{fd.path, fd.status, fd.patch})
	}
	s.mu.Unlock()
	render(w, c.message, commitTmpl, data)
}

var pullTmpl = template.Must(template.New("pull").Parse(`<h1>{{.Title}} <span class="meta">#{{.Number}}</span></h1>
<p><span class="tag">{{.State}}{{if .Draft}} · draft{{end}}</span> <b>{{.Author}}</b> wants to merge <code>{{.Head}}</code> into <code>{{.Base}}</code>
· head <code>{{.HeadSHA}}</code> · <a href="{{.DiffURL}}">diff</a></p>
{{if .Labels}}<p>Labels: {{range .Labels}}<span class="tag">{{.}}</span> {{end}}</p>{{end}}
{{if .Requested}}<p class="meta">Review requested from: {{range .Requested}}{{.}} {{end}}</p>{{end}}
<div class="box"><pre>{{.Body}}</pre></div>
<h2>Checks</h2>
{{range .Checks}}<div class="box" id="check-{{.ID}}"><b>{{.Name}}</b> <span class="tag {{.Conclusion}}">{{.Status}}{{if .Conclusion}} · {{.Conclusion}}{{end}}</span>
{{if .DetailsURL}}<a href="{{.DetailsURL}}">Details</a>{{end}}
{{if .Title}}<h4>{{.Title}}</h4>{{end}}{{if .Summary}}<pre>{{.Summary}}</pre>{{end}}{{if .Text}}<pre>{{.Text}}</pre>{{end}}</div>
{{else}}<p class="meta">No check runs on the head commit.</p>{{end}}
<h2>Conversation</h2>
{{range .Items}}
 {{if .Comment}}<div class="box" id="issuecomment-{{.Comment.ID}}"><b>{{.Comment.Author}}</b> <span class="meta">commented {{.At}}</span><pre>{{.Comment.Body}}</pre></div>{{end}}
 {{if .Review}}<div class="box" id="pullrequestreview-{{.Review.ID}}"><b>{{.Review.Author}}</b> <span class="meta">reviewed ({{.Review.State}}) at <code>{{.Review.CommitID}}</code> {{.At}}</span>
  {{if .Review.Body}}<pre>{{.Review.Body}}</pre>{{end}}
  {{range .Threads}}<div class="thread" id="discussion_r{{.RootID}}"><p><code>{{.Path}}</code> line {{.Line}}
   {{if .Outdated}}<span class="tag">Outdated</span>{{end}}{{if .Resolved}}<span class="tag">Resolved</span>{{end}}</p>
   {{if .Hunk}}<pre>{{.Hunk}}</pre>{{end}}
   {{range .Comments}}<div id="discussion_r{{.ID}}"><b>{{.Author}}</b><pre>{{.Body}}</pre></div>{{end}}</div>{{end}}
 </div>{{end}}
{{end}}
<h2>Comment</h2>
<form method="post" action="{{.CommentURL}}">
<p>As <select name="as">{{range .Users}}<option{{if eq . $.As}} selected{{end}}>{{.}}</option>{{end}}</select></p>
<textarea name="body" placeholder="@app review"></textarea>
<p><button type="submit">Comment</button></p></form>`))

type threadView struct {
	RootID             int64
	Path, Hunk         string
	Line               int
	Outdated, Resolved bool
	Comments           []ReviewComment
}

type convItem struct {
	at      time.Time
	At      string
	Comment *IssueComment
	Review  *Review
	Threads []threadView
}

func (s *Sim) pagePull(w http.ResponseWriter, r *http.Request) {
	nStr := r.PathValue("n")
	if strings.HasSuffix(nStr, ".diff") || strings.HasSuffix(nStr, ".patch") {
		s.pageDiff(w, r, strings.TrimSuffix(strings.TrimSuffix(nStr, ".diff"), ".patch"))
		return
	}
	n, _ := strconv.Atoi(nStr)
	s.mu.Lock()
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	var p *pull
	if rp != nil {
		p = s.pulls[pullKey(rp.fullName(), n)]
	}
	if p == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	data := struct {
		Number                                          int
		Title, Body, Author, Head, Base, HeadSHA, State string
		DiffURL, CommentURL, As                         string
		Draft                                           bool
		Labels, Requested, Users                        []string
		Checks                                          []CheckRun
		Items                                           []convItem
	}{Number: p.number, Title: p.title, Body: p.body, Author: p.author, Head: p.headRef, Base: p.baseRef, HeadSHA: p.headSHA,
		State: p.state, Draft: p.draft, Labels: p.labels, DiffURL: s.html("/%s/pull/%d.diff", rp.fullName(), n),
		CommentURL: s.html("/%s/pull/%d/comment", rp.fullName(), n)}
	data.Requested = append(append([]string(nil), p.reqUsers...), p.reqTeams...)
	users := map[string]bool{p.author: true}
	for login, perm := range rp.perms {
		if perm != "none" {
			users[s.accounts[login].login] = true
		}
	}
	data.As = firstNonEmpty(r.URL.Query().Get("as"), s.oauthLogin, p.author)
	users[data.As] = true
	data.Users = sortedKeys(users)
	for _, c := range s.sortedChecks() {
		if c.repo == rp.fullName() && c.headSHA == p.headSHA {
			data.Checks = append(data.Checks, CheckRun{ID: c.id, Name: c.name, Status: c.status, Conclusion: c.conclusion,
				DetailsURL: c.detailsURL, Title: c.title, Summary: c.summary, Text: c.text})
		}
	}
	for _, c := range p.issueComments {
		ic := IssueComment{ID: c.id, Author: c.author, Body: c.body}
		data.Items = append(data.Items, convItem{at: c.created, Comment: &ic})
	}
	byID := map[int64]*reviewComment{}
	for _, c := range p.reviewComments {
		byID[c.id] = c
	}
	for _, rv := range p.reviews {
		item := convItem{at: rv.at, Review: &Review{ID: rv.id, Author: rv.author, Body: rv.body, State: rv.state, CommitID: rv.commitID}}
		for _, t := range p.threads {
			root := byID[t.rootID]
			if root == nil || root.reviewID != rv.id {
				continue
			}
			tv := threadView{RootID: root.id, Path: t.path, Hunk: root.diffHunk, Line: root.originalLine, Outdated: t.outdated, Resolved: t.resolved}
			for _, id := range t.comments {
				c := byID[id]
				tv.Comments = append(tv.Comments, ReviewComment{ID: c.id, Author: c.author, Body: c.body})
			}
			item.Threads = append(item.Threads, tv)
		}
		if item.Review.Body == "" && len(item.Threads) == 0 {
			continue // a reply's implicit review is shown in its thread
		}
		data.Items = append(data.Items, item)
	}
	sort.SliceStable(data.Items, func(i, j int) bool { return data.Items[i].at.Before(data.Items[j].at) })
	for i := range data.Items {
		data.Items[i].At = data.Items[i].at.UTC().Format("2006-01-02 15:04:05Z")
	}
	s.mu.Unlock()
	render(w, data.Title, pullTmpl, data)
}

func (s *Sim) pageDiff(w http.ResponseWriter, r *http.Request, nStr string) {
	n, _ := strconv.Atoi(nStr)
	s.mu.Lock()
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	var p *pull
	if rp != nil {
		p = s.pulls[pullKey(rp.fullName(), n)]
	}
	if p == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	diff := unifiedDiff(s.pullDiff(rp, p))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, diff)
}

// postComment posts a PR comment as the chosen sandbox user (delivering
// issue_comment created) and goes back to the PR.
func (s *Sim) postComment(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	name := r.PathValue("owner") + "/" + r.PathValue("repo")
	body, as := strings.TrimSpace(r.PostForm.Get("body")), strings.TrimSpace(r.PostForm.Get("as"))
	s.mu.Lock()
	rp := s.repos[strings.ToLower(name)]
	ok := rp != nil && s.pulls[pullKey(rp.fullName(), n)] != nil
	if as == "" {
		as = firstNonEmpty(s.oauthLogin, "octocat")
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if body != "" {
		s.Comment(name, n, as, body)
	}
	http.Redirect(w, r, s.html("/%s/pull/%d?as=%s", name, n, as), http.StatusSeeOther)
}

var runTmpl = template.Must(template.New("run").Parse(`<h1>Workflow run {{.ID}}</h1>
<p><code>{{.Workflow}}</code> on <code>{{.Ref}}</code> at <code>{{.SHA}}</code> · run #{{.RunNumber}} attempt {{.RunAttempt}}</p>
<p><span class="tag {{.Conclusion}}">{{.Status}}{{if .Conclusion}} · {{.Conclusion}}{{end}}</span></p>
<pre>{{range $k, $v := .Inputs}}{{$k}}: {{$v}}
{{end}}</pre>`))

func (s *Sim) pageRun(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	run, ok := s.Run(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	render(w, "Run "+r.PathValue("id"), runTmpl, run)
}

var checkTmpl = template.Must(template.New("check").Parse(`<h1>{{.Name}}</h1>
<p><span class="tag {{.Conclusion}}">{{.Status}}{{if .Conclusion}} · {{.Conclusion}}{{end}}</span> on <code>{{.HeadSHA}}</code>
{{if .DetailsURL}}· <a href="{{.DetailsURL}}">Details</a>{{end}}</p>
{{if .Title}}<h3>{{.Title}}</h3>{{end}}{{if .Summary}}<pre>{{.Summary}}</pre>{{end}}{{if .Text}}<pre>{{.Text}}</pre>{{end}}`))

func (s *Sim) pageCheck(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	c := s.checks[id]
	var cr CheckRun
	if c != nil {
		cr = CheckRun{ID: c.id, Name: c.name, HeadSHA: c.headSHA, Status: c.status, Conclusion: c.conclusion, DetailsURL: c.detailsURL,
			Title: c.title, Summary: c.summary, Text: c.text}
	}
	s.mu.Unlock()
	if c == nil {
		http.NotFound(w, r)
		return
	}
	render(w, cr.Name, checkTmpl, cr)
}
