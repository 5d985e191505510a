package ghsim

import (
	"html/template"
	"net/http"
	"strings"
)

// GitHub's pages for adding and editing a file in the browser, as far as
// the portal's enrolment links need them (API.md, "GitHub's web pages"):
// /OWNER/REPO/new/BRANCH?filename=PATH&value=TEXT opens the editor with the
// name and the content filled in, /OWNER/REPO/edit/BRANCH/PATH with the
// file's current content. Committing is the person's own write: it needs
// write access to the repository and a branch that takes direct commits.

var editTmpl = template.Must(template.New("edit").Parse(`<h1>{{if .New}}New file{{else}}Edit file{{end}} in <a href="{{.RepoURL}}">{{.Repo}}</a></h1>
<p class="meta">on branch <b>{{.Branch}}</b></p>
{{if .Error}}<p class="box error" role="alert">{{.Error}}</p>{{end}}
<form method="post" class="box">
<p><label>Name your file <input name="filename" value="{{.Path}}"{{if not .New}} readonly{{end}} size="60"></label></p>
<p><label>Content<br><textarea name="value" rows="24" cols="100">{{.Content}}</textarea></label></p>
<p><label>Commit message <input name="message" value="{{.Message}}" size="60"></label></p>
<p><label>As <select name="as">{{range .Users}}<option{{if eq . $.As}} selected{{end}}>{{.}}</option>{{end}}</select></label></p>
<p><button type="submit">Commit changes</button></p>
</form>`))

type editView struct {
	New                                  bool
	Repo, RepoURL, Branch, Path, Content string
	Message, As, Error                   string
	Users                                []string
}

// editForm gathers what the page shows; ok is false when the repository
// or the branch does not exist (GitHub answers 404). Caller holds s.mu.
func (s *Sim) editForm(rp *repo, branch, as string) (editView, bool) {
	if rp == nil {
		return editView{}, false
	}
	if _, ok := rp.branches[branch]; !ok {
		return editView{}, false
	}
	users := map[string]bool{}
	for login, perm := range rp.perms {
		if permRank[perm] >= permRank["write"] {
			users[s.accounts[login].login] = true
		}
	}
	as = firstNonEmpty(as, s.oauthLogin)
	if as != "" {
		users[as] = true
	}
	return editView{Repo: rp.fullName(), RepoURL: s.html("/%s", rp.fullName()), Branch: branch, As: as, Users: sortedKeys(users)}, true
}

// pageNewFile: GET /OWNER/REPO/new/BRANCH?filename=&value=.
func (s *Sim) pageNewFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v, ok := s.editForm(s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))], r.PathValue("branch"), r.URL.Query().Get("as"))
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	v.New = true
	v.Path = strings.Trim(r.URL.Query().Get("filename"), "/")
	v.Content = r.URL.Query().Get("value")
	v.Message = "Create " + firstNonEmpty(v.Path, "file")
	render(w, "New file", editTmpl, v)
}

// pageEditFile: GET /OWNER/REPO/edit/BRANCH/PATH, the file's content at the
// branch's head (404 when the file does not exist, as on GitHub).
func (s *Sim) pageEditFile(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.PathValue("path"), "/")
	s.mu.Lock()
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	v, ok := s.editForm(rp, r.PathValue("branch"), r.URL.Query().Get("as"))
	if ok {
		v.Content, ok = rp.commits[rp.branches[v.Branch]].files[path]
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	v.Path = path
	v.Message = "Update " + path
	render(w, "Edit file", editTmpl, v)
}

// postFile commits the form's file to the branch as the chosen user and
// goes to the commit. Refused, the form comes back with GitHub's reason:
// no write access, a protected branch ("Changes must be made through a
// pull request", as the API's 409 says), a new file whose name is taken.
func (s *Sim) postFile(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	isNew := r.PathValue("path") == ""
	path := strings.Trim(firstNonEmpty(r.PathValue("path"), r.PostForm.Get("filename")), "/")
	content := strings.ReplaceAll(r.PostForm.Get("value"), "\r\n", "\n") // a textarea submits CRLF
	s.mu.Lock()
	rp := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	v, ok := s.editForm(rp, r.PathValue("branch"), strings.TrimSpace(r.PostForm.Get("as")))
	if !ok {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	v.New, v.Path, v.Content = isNew, path, content
	v.Message = firstNonEmpty(strings.TrimSpace(r.PostForm.Get("message")), "Create "+path)
	head := rp.branches[v.Branch]
	_, exists := rp.commits[head].files[path]
	switch {
	case path == "" || strings.Contains(path, ".."):
		v.Error = "The file needs a name."
	case permRank[s.permission(rp, v.As)] < permRank["write"]:
		v.Error = "You do not have permission to commit to this repository."
	case rp.protected[v.Branch]:
		v.Error = "Changes must be made through a pull request."
	case isNew && exists:
		v.Error = "A file with the same name already exists."
	case !isNew && !exists:
		v.Error = path + " does not exist on " + v.Branch + "."
	}
	if v.Error != "" {
		s.mu.Unlock()
		w.WriteHeader(http.StatusUnprocessableEntity)
		render(w, "File", editTmpl, v)
		return
	}
	cm := s.newCommit(rp, []string{head}, rp.commits[head].files, map[string]string{path: content}, v.Message, v.As)
	s.advance(rp, v.Branch, head, cm, false, false)
	to := s.html("/%s/commit/%s", rp.fullName(), cm.sha)
	s.mu.Unlock()
	s.flush()
	http.Redirect(w, r, to, http.StatusSeeOther)
}
