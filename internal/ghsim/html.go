package ghsim

import (
	"embed"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The simulator's "github.com" pages: enough for a sandbox user to see a PR
// as GitHub would show it (conversation with rendered reviews, suggestions
// and inline threads, files changed with the threads on their lines, check
// runs, the Actions run with its live log) and to comment on it. html_url
// fields in API answers point here.

//go:embed pages
var pageAssets embed.FS

// pagesCSP allows the pages' own stylesheet and script only: nothing a
// rendered comment carries can run or load from elsewhere.
const pagesCSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func (s *Sim) htmlMux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /sim/{$}", s.pageIndex)
	m.HandleFunc("GET /sim/-/{file}", servePageAsset)
	m.HandleFunc("GET /sim/{owner}/{$}", s.pageOwner)
	m.HandleFunc("GET /sim/{owner}", s.pageOwner)
	m.HandleFunc("GET /sim/{owner}/{repo}", s.pageRepo)
	m.HandleFunc("GET /sim/{owner}/{repo}/pull/{n}", s.pagePull)
	m.HandleFunc("GET /sim/{owner}/{repo}/pull/{n}/files", s.pageFiles)
	m.HandleFunc("GET /sim/{owner}/{repo}/commit/{sha}", s.pageCommit)
	m.HandleFunc("POST /sim/{owner}/{repo}/pull/{n}/comment", s.postComment)
	m.HandleFunc("POST /sim/{owner}/{repo}/pull/{n}/comments/{id}/replies", s.postReply)
	m.HandleFunc("GET /sim/{owner}/{repo}/actions/runs/{id}", s.pageRun)
	m.HandleFunc("GET /sim/{owner}/{repo}/actions/runs/{id}/log", s.runLog)
	m.HandleFunc("GET /sim/{owner}/{repo}/runs/{id}", s.pageCheck)
	m.HandleFunc("GET /sim/{owner}/{repo}/new/{branch}", s.pageNewFile)
	m.HandleFunc("POST /sim/{owner}/{repo}/new/{branch}", s.postFile)
	m.HandleFunc("GET /sim/{owner}/{repo}/edit/{branch}/{path...}", s.pageEditFile)
	m.HandleFunc("POST /sim/{owner}/{repo}/edit/{branch}/{path...}", s.postFile)
	return m
}

func (s *Sim) serveHTML(w http.ResponseWriter, r *http.Request) {
	s.count(r.Method + " /sim")
	s.htmlOnce.Do(func() { s.pages = s.htmlMux() })
	w.Header().Set("Content-Security-Policy", pagesCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.pages.ServeHTTP(w, r)
}

func servePageAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := pageAssets.ReadFile("pages/" + name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	switch path.Ext(name) {
	case ".css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case ".js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	}
	_, _ = w.Write(b)
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} · ghsim</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/sim/-/style.css">{{if .Script}}
<script src="/sim/-/{{.Script}}" defer></script>{{end}}
</head><body>
<p class="meta"><a href="/sim/">ghsim</a> — simulated GitHub</p>
<main>
{{.Body}}
</main>
</body></html>`))

type page struct {
	Title, Script string
	Body          template.HTML
}

func render(w http.ResponseWriter, title string, t *template.Template, data any) {
	renderScript(w, title, "", t, data)
}

func renderScript(w http.ResponseWriter, title, script string, t *template.Template, data any) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		http.Error(w, "template error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, page{Title: title, Script: script, Body: template.HTML(b.String())}) //nolint:gosec // executed templates
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

// pageOwner lists an owner's repositories (github.com/acme).
func (s *Sim) pageOwner(w http.ResponseWriter, r *http.Request) {
	owner := strings.ToLower(r.PathValue("owner"))
	s.mu.Lock()
	var names []string
	for _, rp := range s.repos {
		if strings.ToLower(rp.owner) == owner {
			names = append(names, rp.fullName())
		}
	}
	s.mu.Unlock()
	if len(names) == 0 {
		http.NotFound(w, r)
		return
	}
	sort.Strings(names)
	render(w, r.PathValue("owner"), indexTmpl, names)
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

// postReply replies in a review thread as the chosen sandbox user
// (delivering pull_request_review_comment created) and goes back to the
// thread on the Files changed tab.
func (s *Sim) postReply(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	name := r.PathValue("owner") + "/" + r.PathValue("repo")
	body, as := strings.TrimSpace(r.PostForm.Get("body")), strings.TrimSpace(r.PostForm.Get("as"))
	s.mu.Lock()
	rp := s.repos[strings.ToLower(name)]
	var root *reviewComment
	if rp != nil {
		if p := s.pulls[pullKey(rp.fullName(), n)]; p != nil {
			for _, c := range p.reviewComments {
				if c.id == id && c.inReplyTo == 0 {
					root = c
				}
			}
		}
	}
	if as == "" {
		as = firstNonEmpty(s.oauthLogin, "octocat")
	}
	s.mu.Unlock()
	if root == nil {
		http.NotFound(w, r)
		return
	}
	if body != "" {
		s.ReplyToReviewComment(name, n, id, as, body)
	}
	http.Redirect(w, r, s.html("/%s/pull/%d/files?as=%s#thread-%d", name, n, url.QueryEscape(as), id), http.StatusSeeOther)
}
