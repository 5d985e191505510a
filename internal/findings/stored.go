package findings

// Stored is a run's result as Chakshu keeps it (the run's result column):
// parsed, validated and redacted once, when the runner reports
// (server/runnerapi), then read as it is by the publisher, outcomes and
// GraphQL; nothing parses or validates it again. Exactly one of Review and
// Reply is set.
type Stored struct {
	Review *Result      `json:"review,omitempty"`
	Reply  *ReplyResult `json:"reply,omitempty"`
	// Checked is what a review run looked at and what the runner's checks
	// did (nil for reply runs). Its JSON is GraphQL's Run.checked map.
	Checked *Coverage `json:"checked,omitempty"`
}

// Coverage is what a review run looked at, as stored for it.
type Coverage struct {
	// Files are the files the agent says it read, or else those the runner
	// saw it read (bounded); Skills the skills it used.
	Files  []string `json:"files"`
	Skills []string `json:"skills"`
	// FilesRead are the files the runner saw the agent read.
	FilesRead []string `json:"files_read"`
	// Evidence is the runner's evidence check (runners of protocol 2 on).
	Evidence *RunnerEvidence `json:"evidence,omitempty"`
	// Samples are the figures of a review in several passes.
	Samples *Samples `json:"samples,omitempty"`
	// Verify are the figures of the runner's verification step, its cost
	// apart from the passes'.
	Verify *Verification `json:"verify,omitempty"`
}

// Verification is what the runner's verifier did with the candidates that
// survived the vote: confirmed, refuted (dropped) and left unverified, at
// which minimum confidence, in how many calls and turns, at what estimated
// cost (USD). The runner reports it in this shape (runnerproto.Report.Verify).
type Verification struct {
	// Candidates is how many findings were put to the verifier; Confirmed
	// were kept at or above MinConfidence; Refuted were dropped below it;
	// Unverified were kept without a verdict (the verifier failed, ran out
	// of its share of the cost cap, or gave no verdict on them).
	Candidates    int `json:"candidates"`
	Confirmed     int `json:"confirmed"`
	Refuted       int `json:"refuted"`
	Unverified    int `json:"unverified"`
	MinConfidence int `json:"min_confidence"`
	// Calls is how many verification conversations ran (one per file) and
	// Turns their model calls; CostUSD is their estimated cost, part of the
	// run's one cost cap and reported apart from the review passes'.
	Calls   int     `json:"calls"`
	Turns   int     `json:"turns"`
	CostUSD float64 `json:"cost_usd"`
}

// RunnerEvidence is what the runner's evidence check did with the agent's
// findings: counts, and the dropped findings with why (redacted, bounded).
// The runner is not trusted for it: the publisher checks every finding
// again.
type RunnerEvidence struct {
	Kept            int              `json:"kept"`
	Moved           int              `json:"moved"`
	Dropped         int              `json:"dropped"`
	Unchecked       int              `json:"unchecked"`
	DroppedFindings []DroppedFinding `json:"dropped_findings"`
}

// DroppedFinding is a finding the runner's evidence check dropped, and why.
type DroppedFinding struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Title  string `json:"title"`
	Reason string `json:"reason"`
}

// Samples are the figures of a review run in several passes: how many
// passes were asked for and ran, how many had to agree (and how many the
// reviewer asked for, when that could not be met), each pass's findings,
// and how many distinct findings agreement kept and dropped. The runner
// reports them in this shape (runnerproto.Report.Samples).
type Samples struct {
	// Passes is how many passes the job asked for; Ran how many returned a
	// result (a pass that failed, or was not started because the cost cap
	// or the wall time was spent, did not).
	Passes int `json:"passes"`
	Ran    int `json:"ran"`
	// Agree is how many passes had to report a finding for it to be kept:
	// the job's agree, or Ran when fewer passes than that returned a result;
	// then AgreeAsked is the job's agree, which could not be met (the
	// check run says so). Absent when agree was met.
	Agree      int `json:"agree"`
	AgreeAsked int `json:"agree_asked,omitempty"`
	// PassFindings is how many findings each pass that ran reported, in
	// order.
	PassFindings []int `json:"pass_findings"`
	// Lenses are the focuses the passes that ran took, in the order of
	// PassFindings (the job's Lenses in turn); absent when the job has
	// none. Like AgreeAsked, only sent when set: a server build before
	// this field (one that already sends Lenses) refuses it under strict
	// decoding.
	Lenses []string `json:"lenses,omitempty"`
	// Distinct is how many different findings (by Same) the passes
	// reported together; Kept how many reached Agree; Dropped = Distinct -
	// Kept, the findings agreement removed.
	Distinct int `json:"distinct"`
	Kept     int `json:"kept"`
	Dropped  int `json:"dropped"`
}
