package ghsim

import (
	"crypto/rsa"
	"time"
)

// account is a user, bot or organization.
type account struct {
	id    int64
	login string
	typ   string // User, Bot, Organization
	name  string
	email string
}

type team struct {
	id      int64
	org     string
	slug    string
	name    string
	members map[string]bool
	perms   map[string]string // repo full name → permission
}

type app struct {
	id       int64
	slug     string
	name     string
	key      *rsa.PrivateKey
	clientID string
	secret   string // OAuth client secret
	owner    string
}

type installation struct {
	id      int64
	appID   int64
	account string // login
	repos   map[string]bool
	all     bool // repository_selection "all"
	perms   map[string]string
	created time.Time
}

type accessToken struct {
	token   string
	inst    int64  // installation id, or 0 for a user token
	user    string // login for OAuth user tokens
	expires time.Time
	// perms narrows an installation token to what it was minted with (the
	// access_tokens request's permissions); nil means the installation's.
	perms map[string]string
	// scopes are a classic personal access token's OAuth scopes (PAT); nil
	// means a token not limited by scopes (OAuth user tokens in the sim).
	scopes []string
}

type repo struct {
	id            int64
	owner         string
	name          string
	private       bool
	defaultBranch string
	branches      map[string]string // name → sha
	commits       map[string]*commit
	perms         map[string]string // login → admin/maintain/write/triage/read
	labels        map[string]int64  // name → id
	created       time.Time
	pushed        time.Time
	nextNumber    int // issues and PRs share numbers
	// protected are the branches under branch protection requiring a pull
	// request: the API refuses writes to them (writes.go).
	protected map[string]bool
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

type pull struct {
	number         int
	id             int64
	repo           string
	title          string
	body           string
	author         string
	headRef        string
	baseRef        string
	headSHA        string
	baseSHA        string // base branch head when opened (GitHub's base.sha moves; we refresh it)
	draft          bool
	state          string // open, closed
	merged         bool
	labels         []string
	reqUsers       []string
	reqTeams       []string // slugs
	created        time.Time
	updated        time.Time
	closed         time.Time
	issueComments  []*issueComment
	reviews        []*review
	reviewComments []*reviewComment
	threads        []*thread
}

type issueComment struct {
	id      int64
	body    string
	author  string
	created time.Time
	updated time.Time
}

type review struct {
	id       int64
	author   string
	body     string
	state    string // COMMENTED, APPROVED, CHANGES_REQUESTED, PENDING
	event    string // as sent
	commitID string
	at       time.Time
}

type reviewComment struct {
	id             int64
	reviewID       int64
	author         string
	body           string
	path           string
	line           int // 0 when outdated
	originalLine   int
	startLine      int
	originalStart  int
	side           string
	startSide      string
	commitID       string
	originalCommit string
	diffHunk       string
	inReplyTo      int64
	threadID       int64
	created        time.Time
	updated        time.Time
	reactions      []*reaction
}

// reaction is one person's emoji on a review comment. content is the REST
// name ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes").
type reaction struct {
	id      int64
	content string
	user    string
	created time.Time
}

type thread struct {
	id         int64
	rootID     int64
	comments   []int64
	path       string
	resolved   bool
	resolvedBy string
	outdated   bool
}

type checkRun struct {
	id          int64
	repo        string
	appID       int64
	name        string
	headSHA     string
	status      string
	conclusion  string
	detailsURL  string
	externalID  string
	title       string
	summary     string
	text        string
	started     time.Time
	completed   time.Time
	annotations int
}

type workflowRun struct {
	id          int64
	repo        string
	workflow    string // file name
	workflowID  int64
	ref         string // branch name
	sha         string
	inputs      map[string]any
	status      string
	conclusion  string
	runNumber   int
	attempt     int
	actor       string
	created     time.Time
	updated     time.Time
	idToken     string // ACTIONS_ID_TOKEN_REQUEST_TOKEN
	installID   int64
	displayName string
}
