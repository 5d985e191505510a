package ghsim

import (
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The pull request's pages: the conversation (description, comments,
// reviews with their threads, checks) and the files changed with each
// current thread under the line it comments on, as GitHub shows them.

const pullHeadTmpl = `{{define "head"}}<h1>{{.Title}} <span class="meta">#{{.Number}}</span></h1>
<p><span class="tag">{{.State}}{{if .Draft}} · draft{{end}}</span> <b>{{.Author}}</b> wants to merge <code>{{.Head}}</code> into <code>{{.Base}}</code>
· head <code>{{.HeadSHA}}</code> · <a href="{{.DiffURL}}">diff</a></p>
<nav class="tabs" aria-label="Pull request"><a href="{{.ConversationURL}}">Conversation</a> <a href="{{.FilesURL}}">Files changed</a></nav>{{end}}
{{define "thread"}}<details class="thread" id="thread-{{.RootID}}"{{if not .Collapsed}} open{{end}}>
<summary><code>{{.Path}}</code> {{if .StartLine}}lines {{.StartLine}}–{{.Line}}{{else}}line {{.Line}}{{end}}
{{if .Outdated}}<span class="tag outdated">Outdated</span>{{end}}{{if .Resolved}}<span class="tag resolved">Resolved</span>{{if .ResolvedBy}} <span class="meta">by {{.ResolvedBy}}</span>{{end}}{{end}}</summary>
{{if .Hunk}}<table class="diff">{{range .Hunk}}<tr class="{{.Kind}}"><td class="num">{{.OldNum}}</td><td class="num">{{.NewNum}}</td><td class="code">{{.Text}}</td></tr>{{end}}</table>{{end}}
{{range .Comments}}<div class="thread-comment" id="discussion_r{{.ID}}"><b>{{.Author}}</b><div class="markdown-body">{{.Body}}</div></div>{{end}}
{{if .ReplyURL}}<form class="thread-comment reply" method="post" action="{{.ReplyURL}}"><input type="hidden" name="as" value="{{.As}}">
<textarea name="body" aria-label="Reply to this thread as {{.As}}" placeholder="Reply…"></textarea><p><button type="submit">Reply as {{.As}}</button></p></form>{{end}}
</details>{{end}}`

var pullTmpl = template.Must(template.New("pull").Parse(pullHeadTmpl + `{{template "head" .}}
{{if .Labels}}<p>Labels: {{range .Labels}}<span class="tag">{{.}}</span> {{end}}</p>{{end}}
{{if .Requested}}<p class="meta">Review requested from: {{range .Requested}}{{.}} {{end}}</p>{{end}}
<div class="box"><div class="box-head"><b>{{.Author}}</b> <span class="meta">opened this pull request</span></div><div class="box-body markdown-body">{{.Body}}</div></div>
<h2>Conversation</h2>
{{range .Items}}
 {{if .Comment}}<div class="box" id="issuecomment-{{.Comment.ID}}"><div class="box-head"><b>{{.Comment.Author}}</b> <span class="meta">commented {{.At}}</span></div><div class="box-body markdown-body">{{.Comment.Body}}</div></div>{{end}}
 {{if .Review}}<div class="box review" id="pullrequestreview-{{.Review.ID}}"><div class="box-head"><b>{{.Review.Author}}</b> <span class="meta">reviewed ({{.Review.State}}) at <code>{{.Review.CommitID}}</code> {{.At}}</span></div>
  <div class="box-body">{{if .Review.Body}}<div class="markdown-body">{{.Review.Body}}</div>{{end}}
  {{range .Threads}}{{template "thread" .}}{{end}}</div>
 </div>{{end}}
{{end}}
<h2>Checks</h2>
{{range .Checks}}<div class="box check" id="check-{{.ID}}"><div class="box-head"><b>{{.Name}}</b> <span class="tag {{.Conclusion}}">{{.Status}}{{if .Conclusion}} · {{.Conclusion}}{{end}}</span>
 <a href="{{.URL}}">Check run</a>{{if .DetailsURL}} · <a href="{{.DetailsURL}}">Details</a>{{end}}</div>
 {{if or .Title .Summary}}<div class="box-body">{{if .Title}}<h3>{{.Title}}</h3>{{end}}<div class="markdown-body">{{.Summary}}</div></div>{{end}}</div>
{{else}}<p class="meta">No check runs on the head commit.</p>{{end}}
<h2 id="comment">Comment</h2>
<form method="post" action="{{.CommentURL}}">
<p><label>As <select name="as">{{range .Users}}<option{{if eq . $.As}} selected{{end}}>{{.}}</option>{{end}}</select></label></p>
<textarea name="body" aria-label="Comment" placeholder="@app review"></textarea>
<p><button type="submit">Comment</button></p></form>`))

var filesTmpl = template.Must(template.New("files").Parse(pullHeadTmpl + `{{template "head" .}}
<h2>{{len .Files}} changed file(s)</h2>
{{range .Files}}<div class="box file" id="file-{{.Path}}"><div class="box-head"><code>{{.Path}}</code> <span class="tag">{{.Status}}</span></div>
<table class="diff">{{range .Rows}}<tr class="{{.Kind}}"><td class="num">{{.OldNum}}</td><td class="num">{{.NewNum}}</td><td class="code">{{.Text}}</td></tr>
{{range .Threads}}<tr class="thread-row"><td colspan="3">{{template "thread" .}}</td></tr>{{end}}{{end}}</table>
{{range .Unplaced}}<div class="box-body">{{template "thread" .}}</div>{{end}}
</div>{{else}}<p>No changes.</p>{{end}}`))

// diffRow is one line of a unified diff as GitHub shows it: its kind (hunk,
// ctx, add, del), the old and new line numbers, and the text.
type diffRow struct {
	Kind           string
	OldNum, NewNum string
	old, new       int
	Text           string
	Threads        []threadView
}

// diffRows parses a patch (hunks only, as in a file's patch or a comment's
// diff_hunk) into rows.
func diffRows(patch string) []diffRow {
	var rows []diffRow
	oldN, newN := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			var a, b, c, d int
			if n, _ := sscanHunk(l, &a, &b, &c, &d); n > 0 {
				oldN, newN = a, c
			}
			rows = append(rows, diffRow{Kind: "hunk", Text: l})
		case strings.HasPrefix(l, "+"):
			rows = append(rows, diffRow{Kind: "add", NewNum: strconv.Itoa(newN), new: newN, Text: l})
			newN++
		case strings.HasPrefix(l, "-"):
			rows = append(rows, diffRow{Kind: "del", OldNum: strconv.Itoa(oldN), old: oldN, Text: l})
			oldN++
		case strings.HasPrefix(l, `\`):
			rows = append(rows, diffRow{Kind: "ctx", Text: l})
		default:
			rows = append(rows, diffRow{Kind: "ctx", OldNum: strconv.Itoa(oldN), NewNum: strconv.Itoa(newN), old: oldN, new: newN, Text: l})
			oldN++
			newN++
		}
	}
	return rows
}

// sscanHunk reads "@@ -a,b +c,d @@" (counts may be left out).
func sscanHunk(l string, a, b, c, d *int) (int, error) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, nil
	}
	num := func(s string, start, count *int) bool {
		p := strings.SplitN(s[1:], ",", 2)
		v, err := strconv.Atoi(p[0])
		if err != nil {
			return false
		}
		*start, *count = v, 1
		if len(p) == 2 {
			*count, _ = strconv.Atoi(p[1])
		}
		return true
	}
	if !num(f[1], a, b) || !num(f[2], c, d) {
		return 0, nil
	}
	return 4, nil
}

type commentView struct {
	ID     int64
	Author string
	Body   template.HTML
}

type threadView struct {
	RootID                        int64
	Path, Side, ResolvedBy        string
	Line, StartLine               int
	Outdated, Resolved, Collapsed bool
	Hunk                          []diffRow
	Comments                      []commentView
	// ReplyURL posts a reply to the thread as As.
	ReplyURL, As string
}

type convItem struct {
	at      time.Time
	At      string
	Comment *commentView
	Review  *reviewView
	Threads []threadView
}

type reviewView struct {
	ID                      int64
	Author, State, CommitID string
	Body                    template.HTML
}

type checkView struct {
	ID                                   int64
	Name, Status, Conclusion, DetailsURL string
	URL, Title, HeadSHA                  string
	Summary, Text                        template.HTML
}

type pullHead struct {
	Number                                         int
	Title, Author, Head, Base, HeadSHA, State      string
	DiffURL, ConversationURL, FilesURL, CommentURL string
	Draft                                          bool
}

// lookupPull finds the PR of the request. Called with s.mu held.
func (s *Sim) lookupPull(r *http.Request, nStr string) (*repo, *pull) {
	n, err := strconv.Atoi(nStr)
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	if rp == nil || err != nil {
		return nil, nil
	}
	p := s.pulls[pullKey(rp.fullName(), n)]
	if p == nil {
		return nil, nil
	}
	return rp, p
}

func (s *Sim) pullHead(rp *repo, p *pull) pullHead {
	n := p.number
	return pullHead{Number: n, Title: p.title, Author: p.author, Head: p.headRef, Base: p.baseRef, HeadSHA: p.headSHA,
		State: p.state, Draft: p.draft, DiffURL: s.html("/%s/pull/%d.diff", rp.fullName(), n),
		ConversationURL: s.html("/%s/pull/%d", rp.fullName(), n), FilesURL: s.html("/%s/pull/%d/files", rp.fullName(), n),
		CommentURL: s.html("/%s/pull/%d/comment", rp.fullName(), n)}
}

// threadViews are p's threads with their comments rendered, by root
// comment id. A resolved or outdated thread is collapsed, as GitHub
// collapses it. Called with s.mu held.
func (s *Sim) threadViews(rp *repo, p *pull, as string) (map[int64]threadView, map[int64]*reviewComment) {
	byID := map[int64]*reviewComment{}
	for _, c := range p.reviewComments {
		byID[c.id] = c
	}
	out := map[int64]threadView{}
	for _, t := range p.threads {
		root := byID[t.rootID]
		if root == nil {
			continue
		}
		line, start := root.line, root.startLine
		if t.outdated || line == 0 {
			line, start = root.originalLine, root.originalStart
		}
		if start == line {
			start = 0
		}
		tv := threadView{RootID: root.id, Path: t.path, Side: root.side, Line: line, StartLine: start, Outdated: t.outdated,
			Resolved: t.resolved, ResolvedBy: t.resolvedBy, Collapsed: t.outdated || t.resolved,
			ReplyURL: s.html("/%s/pull/%d/comments/%d/replies", rp.fullName(), p.number, root.id), As: as}
		hunk := diffRows(root.diffHunk)
		if len(hunk) > 4 { // GitHub shows the last lines of the hunk, ending at the commented line
			hunk = hunk[len(hunk)-4:]
		}
		tv.Hunk = hunk
		target := s.suggestionTargetOf(rp, root)
		for _, id := range t.comments {
			if c := byID[id]; c != nil {
				tv.Comments = append(tv.Comments, commentView{ID: c.id, Author: c.author, Body: renderMarkdown(c.body, target)})
			}
		}
		out[root.id] = tv
	}
	return out, byID
}

func (s *Sim) pagePull(w http.ResponseWriter, r *http.Request) {
	nStr := r.PathValue("n")
	if strings.HasSuffix(nStr, ".diff") || strings.HasSuffix(nStr, ".patch") {
		s.pageDiff(w, r, strings.TrimSuffix(strings.TrimSuffix(nStr, ".diff"), ".patch"))
		return
	}
	s.mu.Lock()
	rp, p := s.lookupPull(r, nStr)
	if p == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	data := struct {
		pullHead
		Body                     template.HTML
		As                       string
		Labels, Requested, Users []string
		Checks                   []checkView
		Items                    []convItem
	}{pullHead: s.pullHead(rp, p), Body: renderMarkdown(p.body, nil), Labels: p.labels}
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
			data.Checks = append(data.Checks, s.checkView(c))
		}
	}
	for _, c := range p.issueComments {
		data.Items = append(data.Items, convItem{at: c.created, Comment: &commentView{ID: c.id, Author: c.author, Body: renderMarkdown(c.body, nil)}})
	}
	threads, byID := s.threadViews(rp, p, data.As)
	for _, rv := range p.reviews {
		item := convItem{at: rv.at, Review: &reviewView{ID: rv.id, Author: rv.author, Body: renderMarkdown(rv.body, nil), State: rv.state, CommitID: rv.commitID}}
		for _, t := range p.threads {
			if root := byID[t.rootID]; root != nil && root.reviewID == rv.id {
				item.Threads = append(item.Threads, threads[root.id])
			}
		}
		if rv.body == "" && len(item.Threads) == 0 {
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

// pageFiles is the "Files changed" tab: the PR's diff with each current
// thread under the line it comments on (new side for RIGHT, old for LEFT).
// An outdated thread is not on the diff any more: GitHub shows it in the
// conversation only.
func (s *Sim) pageFiles(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rp, p := s.lookupPull(r, r.PathValue("n"))
	if p == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	type fileView struct {
		Path, Status string
		Rows         []diffRow
		Unplaced     []threadView
	}
	data := struct {
		pullHead
		Files []fileView
	}{pullHead: s.pullHead(rp, p)}
	threads, _ := s.threadViews(rp, p, firstNonEmpty(r.URL.Query().Get("as"), s.oauthLogin, p.author))
	var roots []int64
	for id := range threads {
		roots = append(roots, id)
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i] < roots[j] })
	for _, fd := range s.pullDiff(rp, p) {
		fv := fileView{Path: fd.path, Status: fd.status, Rows: diffRows(fd.patch)}
		for _, id := range roots {
			tv := threads[id]
			if tv.Path != fd.path || tv.Outdated {
				continue
			}
			placed := false
			for i := range fv.Rows {
				row := &fv.Rows[i]
				onLeft := tv.Side == "LEFT" && row.Kind != "add" && row.Kind != "hunk" && row.old == tv.Line
				onRight := tv.Side != "LEFT" && row.Kind != "del" && row.Kind != "hunk" && row.new == tv.Line
				if onLeft || onRight {
					row.Threads = append(row.Threads, tv)
					placed = true
					break
				}
			}
			if !placed {
				fv.Unplaced = append(fv.Unplaced, tv)
			}
		}
		data.Files = append(data.Files, fv)
	}
	s.mu.Unlock()
	render(w, data.Title+" · Files changed", filesTmpl, data)
}
