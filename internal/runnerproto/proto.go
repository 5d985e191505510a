// Package runnerproto is the wire contract between Chakshu's runner API
// (server side) and chakshu-action (runner side), under /api/runner/v1/.
// server/runnerapi/openapi.yaml describes the same shapes for people.
package runnerproto

import (
	"encoding/json"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Paths of the runner API. {id} is the run id.
const (
	PathJob    = "/api/runner/v1/job"
	PathResult = "/api/runner/v1/runs/{id}/result"
	PathTool   = "/api/runner/v1/runs/{id}/tools/{tool}" // tool is "<connector>.<tool>"
	PathModel  = "/api/runner/v1/runs/{id}/model"        // Anthropic base URL; the SDK appends /v1/messages

	// PathRunner serves chakshu-action of the server's version for one
	// platform ({os}/{arch}: linux/amd64, linux/arm64), gzip-encoded to
	// clients that accept it; PathRunnerSHA256 its SHA-256 in sha256sum's
	// format. The workflow template downloads both.
	PathRunner       = "/api/runner/v1/runner/{os}/{arch}/chakshu-action"
	PathRunnerSHA256 = "/api/runner/v1/runner/{os}/{arch}/chakshu-action.sha256"
)

// HeaderRunnerSHA256 carries the served binary's SHA-256 (hex) on the
// binary's own answer too.
const HeaderRunnerSHA256 = "X-Chakshu-Runner-Sha256"

// Protocol is the version of this wire contract (the shapes and meanings of
// every path above). A change a runner or server of the previous protocol
// would misread bumps it; an added optional field does not.
//
// Compatibility: the server hands a job to a runner whose Protocol lies in
// [MinProtocol, Protocol], whatever build it is, so during a rolling deploy a
// runner downloaded from one web instance may fetch its job from another of a
// neighbouring build. A runner that sends no protocol (builds before the
// field) gets a job only from a server of its own build; any other runner is
// refused with 409 runner_version, naming both protocols.
//
// Protocol 2: findings carry an evidence quote, checked by the runner
// (Report.Evidence); a server of protocol 1 would refuse the field, so a
// runner of protocol 2 needs a server of protocol 2. A server of protocol 2
// still serves runners of protocol 1 and takes their findings without
// evidence (published unchecked).
const Protocol = 2

// MinProtocol is the oldest runner protocol this server still serves.
const MinProtocol = 1

// JobRequest is the body of POST /job (the OIDC token travels as the bearer).
type JobRequest struct {
	// RunID is the Chakshu run id the workflow was dispatched with.
	RunID int64 `json:"run_id"`
	// RunnerVersion is the runner's build (for the record and, without
	// Protocol, the exact match older runners needed).
	RunnerVersion string `json:"runner_version"`
	// Protocol is the runner's Protocol; 0 (absent) from runners built
	// before the field.
	Protocol int `json:"protocol,omitempty"`
}

// Job is everything the runner needs for one run.
type Job struct {
	// Protocol is the server's Protocol.
	Protocol   int    `json:"protocol"`
	RunID      int64  `json:"run_id"`
	Kind       string `json:"kind"` // review or reply
	Reviewer   string `json:"reviewer"`
	Repository string `json:"repository"` // owner/name
	PR         PR     `json:"pr"`

	// System and Prompt are the rendered prompts; untrusted PR data in Prompt
	// is fenced.
	System string `json:"system"`
	Prompt string `json:"prompt"`

	// Diff is the unified diff under review: the whole PR, or only the
	// changes since IncrementalSince.
	Diff             string `json:"diff"`
	IncrementalSince string `json:"incremental_since,omitempty"`
	// Files lists every file the PR touches, minus path_filters.
	Files []string `json:"files"`
	// FilteredFiles were dropped by path_filters (advisory).
	FilteredFiles []string `json:"filtered_files,omitempty"`

	ClaudeMD     string     `json:"claude_md"`
	Skills       []Skill    `json:"skills"`
	Instructions string     `json:"instructions,omitempty"`
	Learnings    []Learning `json:"learnings,omitempty"`
	Tools        []ToolDef  `json:"tools,omitempty"`

	Model       string  `json:"model"`
	MaxCostUSD  float64 `json:"max_cost_usd"`
	MaxTurns    int     `json:"max_turns"`
	WallSeconds int     `json:"wall_seconds"`
	// ForcedToolChoice says whether Model accepts tool_choice {type: tool}
	// (from Chakshu's model catalogue); nil: the runner's built-in catalogue decides.
	ForcedToolChoice *bool `json:"forced_tool_choice,omitempty"`
	// RetrySeconds is how long the runner retries one model request after
	// 429, 529 and 5xx answers (CHAKSHU_MODEL_RETRY_HORIZON); 0: its default.
	RetrySeconds int `json:"retry_seconds,omitempty"`
	// Samples is how many independent agent passes a review runs within
	// MaxCostUSD and WallSeconds, and Agree how many of them must report a
	// finding (grouped by meaning, findings.Same) for it to be kept (reviewer.yaml's samples
	// and agree). 0 (absent, from servers before the fields) means 1; a
	// runner before the fields ignores them and runs one pass.
	Samples int `json:"samples,omitempty"`
	Agree   int `json:"agree,omitempty"`
	// Lenses are the focuses the passes take in turn (reviewer.yaml's
	// lenses): pass i reviews with Lenses[(i-1) % len]. Empty: no lens.
	Lenses []string `json:"lenses,omitempty"`
	// Verify asks the runner to check each finding that survives the vote
	// in a fresh conversation told to refute it (reviewer.yaml's verify);
	// nil (also from servers before the field) means no verification.
	Verify *VerifySpec `json:"verify,omitempty"`

	// RunToken authenticates the runner's later calls for this run only.
	RunToken string `json:"run_token"`
	// ResultURL, ToolURL (with {tool}) and ModelURL are absolute.
	ResultURL string `json:"result_url"`
	ToolURL   string `json:"tool_url"`
	ModelURL  string `json:"model_url"`

	// Reply is set for reply runs.
	Reply *Reply `json:"reply,omitempty"`
}

// PR is pull request metadata. Title and Body are untrusted.
type PR struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	URL     string `json:"url"`
	Author  string `json:"author"`
	HeadSHA string `json:"head_sha"`
	BaseSHA string `json:"base_sha"`
	HeadRef string `json:"head_ref"`
	BaseRef string `json:"base_ref"`
}

// Skill is one reviewer skill; the prompt lists names and descriptions and the
// Skill tool loads Content on demand.
type Skill struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Content     string            `json:"content"`
	Files       map[string]string `json:"files,omitempty"` // other files beside SKILL.md, by relative path
}

// Learning is a review learning that matched a changed file.
type Learning struct {
	ID        int    `json:"id"`
	Glob      string `json:"glob"`
	Directive string `json:"directive"`
}

// ToolDef is one connector tool the agent may call. Name is "<connector>.<tool>".
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Reply carries a reply run's thread.
type Reply struct {
	Finding  ReplyFinding `json:"finding"`
	Thread   []Comment    `json:"thread"`  // oldest first; untrusted
	Excerpt  string       `json:"excerpt"` // the file around the lines, line-numbered
	Path     string       `json:"path"`
	Line     int          `json:"line"`
	Remember string       `json:"remember,omitempty"` // a learning stored from this reply
}

// ReplyFinding is the finding the thread is about.
type ReplyFinding struct {
	Severity string `json:"severity"`
	Category string `json:"category"`
	Title    string `json:"title"`
	Body     string `json:"body"`
}

// Comment is one comment of a thread.
type Comment struct {
	Author string `json:"author"`
	Body   string `json:"body"`
	Bot    bool   `json:"bot,omitempty"`
}

// Report is the body of POST /runs/{id}/result: a result, or the reason the
// run failed. Exactly one of Result and Failure is set.
type Report struct {
	// Result is findings.Result (review) or findings.ReplyResult (reply) JSON.
	Result  json.RawMessage `json:"result,omitempty"`
	Failure *Failure        `json:"failure,omitempty"`
	Stats   Stats           `json:"stats"`
	// Protocol is the runner's Protocol (0 from runners of protocol 1): from
	// 2 on, every finding of Result must carry evidence.
	Protocol int `json:"protocol,omitempty"`
	// Evidence is the runner's evidence check of a review result: Result
	// holds the kept and moved findings; the dropped ones are listed here.
	Evidence *EvidenceReport `json:"evidence,omitempty"`
}

// EvidenceReport says what the runner's evidence check did with the
// agent's findings (each quote looked up in the workspace file at head).
type EvidenceReport struct {
	// Kept, Moved and Dropped count the findings: quote on the named
	// lines; found within findings.EvidenceWindow lines (moved there, the
	// agent's line kept in evidence_moved_from); not in the file or farther.
	Kept    int `json:"kept"`
	Moved   int `json:"moved"`
	Dropped int `json:"dropped"`
	// Unchecked counts findings passed on unchecked: side LEFT, or a file
	// the workspace left out (the server checks them).
	Unchecked int `json:"unchecked,omitempty"`
	// DroppedFindings are the dropped findings with why (at most
	// findings.MaxFindings).
	DroppedFindings []DroppedFinding `json:"dropped_findings,omitempty"`
}

// DroppedFinding is a finding an evidence check dropped, and why.
type DroppedFinding struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Title    string `json:"title"`
	Evidence string `json:"evidence"`
	Reason   string `json:"reason"`
}

// Failure says why the runner could not produce a result.
type Failure struct {
	// Reason is a short safe sentence.
	Reason string `json:"reason"`
	// Detail is for operators; the server redacts it again.
	Detail string `json:"detail,omitempty"`
}

// Stats are the runner's own figures; cost and tokens are metered by the gateway.
type Stats struct {
	Turns      int      `json:"turns"`
	ToolCalls  int      `json:"tool_calls"`
	DurationMS int64    `json:"duration_ms"`
	FilesRead  []string `json:"files_read,omitempty"`
	// Samples is set only by a run of more than one pass (a job with
	// samples above 1), so a one-pass report has the shape servers before
	// the field decode strictly. (A report with it that reaches a server
	// before the field, in a rolling deploy, is refused as malformed: only
	// a job from a server with the field asks for more than one pass.)
	Samples *findings.Samples `json:"samples,omitempty"`
	// Verify is set only by a run that verified its findings (a job with
	// Verify), with the same rolling-deploy caveat as Samples.
	Verify *findings.Verification `json:"verify,omitempty"`
}

// VerifySpec configures the verification of a review's findings.
type VerifySpec struct {
	// MinConfidence is the verifier's confidence (0-10) a finding needs to
	// be kept (reviewer.yaml's verify_min_confidence).
	MinConfidence int `json:"min_confidence"`
}

// ReportAck answers a report.
type ReportAck struct {
	Status string `json:"status"` // accepted, or already_accepted for a repeat
}

// ToolRequest is the body of POST /runs/{id}/tools/{tool}.
type ToolRequest struct {
	Input json.RawMessage `json:"input"`
}

// ToolResponse answers a tool call. Output is size-capped and redacted.
type ToolResponse struct {
	Output    json.RawMessage `json:"output,omitempty"`
	Error     string          `json:"error,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

// Error is the one JSON error shape of every Chakshu HTTP API.
type Error struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}
