package events

// The parts of webhook payloads the handlers read. They are decoded on their
// own rather than with go-github's event types, so that a field Chakshu does
// not use (a timestamp in an older format, say) cannot fail an event.

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type account struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
	Type  string `json:"type"`
}

type repoPayload struct {
	ID            int64   `json:"id"`
	Name          string  `json:"name"`
	FullName      string  `json:"full_name"`
	Owner         account `json:"owner"`
	Private       *bool   `json:"private"`
	DefaultBranch string  `json:"default_branch"`
	MasterBranch  string  `json:"master_branch"`
}

type installationPayload struct {
	ID      int64   `json:"id"`
	Account account `json:"account"`
}

type gitRef struct {
	Ref  string `json:"ref"`
	SHA  string `json:"sha"`
	Repo struct {
		ID int64 `json:"id"`
	} `json:"repo"`
}

// prPayload is a pull request as webhooks and the REST API show it.
type prPayload struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	HTMLURL string `json:"html_url"`
	State   string `json:"state"`
	Draft   bool   `json:"draft"`
	Merged  bool   `json:"merged"`
	Head    gitRef `json:"head"`
	Base    gitRef `json:"base"`
	// User opened the pull request; AuthorAssociation is theirs to the repository.
	User              user   `json:"user"`
	AuthorAssociation string `json:"author_association"`
}

// common are the fields of every event Chakshu acts on.
type common struct {
	Action       string              `json:"action"`
	Installation installationPayload `json:"installation"`
	Repository   *repoPayload        `json:"repository"`
	Sender       user                `json:"sender"`
}

type issueCommentEvent struct {
	common
	Issue struct {
		Number      int  `json:"number"`
		PullRequest *any `json:"pull_request"`
	} `json:"issue"`
	Comment struct {
		ID                int64  `json:"id"`
		Body              string `json:"body"`
		User              user   `json:"user"`
		AuthorAssociation string `json:"author_association"`
	} `json:"comment"`
}

type pullRequestEvent struct {
	common
	PullRequest       prPayload              `json:"pull_request"`
	Label             struct{ Name string }  `json:"label"`
	RequestedReviewer struct{ Login string } `json:"requested_reviewer"`
	RequestedTeam     struct{ Slug string }  `json:"requested_team"`
}

type reviewCommentEvent struct {
	common
	PullRequest prPayload `json:"pull_request"`
	Comment     struct {
		ID                int64  `json:"id"`
		Body              string `json:"body"`
		User              user   `json:"user"`
		AuthorAssociation string `json:"author_association"`
		InReplyTo         int64  `json:"in_reply_to_id"`
		Path              string `json:"path"`
	} `json:"comment"`
}

type workflowRunEvent struct {
	common
	WorkflowRun workflowRunPayload `json:"workflow_run"`
}

type workflowRunPayload struct {
	ID           int64  `json:"id"`
	Conclusion   string `json:"conclusion"`
	Path         string `json:"path"`
	DisplayTitle string `json:"display_title"`
	HTMLURL      string `json:"html_url"`
	// TriggeringActor dispatched it: the App's bot for Chakshu's own.
	TriggeringActor struct {
		Login string `json:"login"`
	} `json:"triggering_actor"`
}

type checkRunEvent struct {
	common
	CheckRun struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
		App  struct {
			Slug string `json:"slug"`
		} `json:"app"`
		PullRequests []struct {
			Number int `json:"number"`
		} `json:"pull_requests"`
	} `json:"check_run"`
}

type installationEvent struct {
	common
	Repositories []*repoPayload `json:"repositories"`
}

type installationRepositoriesEvent struct {
	common
	RepositoriesAdded   []*repoPayload `json:"repositories_added"`
	RepositoriesRemoved []*repoPayload `json:"repositories_removed"`
}

type pushEvent struct {
	common
	Ref     string `json:"ref"`
	After   string `json:"after"`
	Deleted bool   `json:"deleted"`
}
