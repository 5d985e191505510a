package runnerapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/strictjson"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/server"
)

// rejectedPrefix marks the receipt of a refused report.
const rejectedPrefix = "rejected:"

const (
	maxReportBytes   = findings.MaxResultBytes + 256<<10
	maxReasonBytes   = 300
	maxDetailBytes   = 8 << 10
	maxFilesRecorded = 500
)

func (a *API) handleResult(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rn, tok := a.authRun(w, r, true)
	if rn == nil {
		return
	}
	log := a.log.With("run_id", rn.ID)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReportBytes))
	if err != nil {
		server.WriteError(w, http.StatusRequestEntityTooLarge, codeTooLarge, fmt.Sprintf("the report is larger than %d bytes", maxReportBytes))
		return
	}
	if rn.Status != run.StatusRunning {
		// Only an identical repeat of the accepted report, with the same token.
		rc := receipt(hashToken(tok), body)
		if equalHex(rc, rn.ResultHash) {
			server.WriteJSON(w, http.StatusOK, runnerproto.ReportAck{Status: "already_accepted"})
			return
		}
		if equalHex(rejectedPrefix+rc, rn.ResultHash) {
			// A repeat of a report that was refused gets the same answer.
			server.WriteError(w, http.StatusUnprocessableEntity, codeInvalid, rn.FailureReason)
			return
		}
		log.Warn("result: token used after the report", "status", rn.Status)
		server.WriteError(w, http.StatusUnauthorized, codeUnauthorized, "the run token is not valid for this run")
		return
	}
	rcpt := receipt(rn.RunTokenHash, body)
	var rep runnerproto.Report
	if err := strictjson.Decode(body, &rep); err != nil {
		a.rejectReport(w, r, rn, rcpt, "The runner's report was not valid JSON of the expected shape.", err.Error())
		return
	}
	hasResult := len(bytes.TrimSpace(rep.Result)) > 0 && string(bytes.TrimSpace(rep.Result)) != "null"
	if hasResult == (rep.Failure != nil) {
		a.rejectReport(w, r, rn, rcpt, "The runner's report must carry either a result or a failure.", "")
		return
	}
	stats := func(u *ent.RunUpdate) {
		u.SetTurns(max(0, rep.Stats.Turns)).SetDurationMs(max(0, rep.Stats.DurationMS)).SetResultHash(rcpt).SetRunTokenHash("")
	}
	if rep.Failure != nil {
		reason, _ := capString(runstate.Text(redact.String(strings.TrimSpace(rep.Failure.Reason))), maxReasonBytes)
		if reason == "" {
			reason = "The runner could not finish the review."
		}
		detail, _ := capString(runstate.Text(redact.String(rep.Failure.Detail)), maxDetailBytes)
		err := runstate.Transition(ctx, a.cfg.DB.Client, rn.ID, runstate.Change{
			From: []run.Status{run.StatusRunning}, To: run.StatusFailed, Message: reason, Detail: detail,
			Set: func(u *ent.RunUpdate) {
				u.SetFailureReason(reason).SetFailureDetail(detail)
				stats(u)
			},
		})
		if !a.transitioned(w, r, rn, tok, body, err) {
			return
		}
		log.Info("runner reported a failure", "reason", reason)
		a.notify(ctx, wakeup.TopicFinish) // the finisher completes its check run
		server.WriteJSON(w, http.StatusOK, runnerproto.ReportAck{Status: "accepted"})
		return
	}

	// The result is stored once, parsed, validated and redacted (the agent
	// may quote a credential: it is stored and published masked).
	stored := &findings.Stored{}
	var summary string
	var redacted bool
	if rn.Kind == run.KindReply {
		rr, err := findings.ParseReply(rep.Result)
		if err != nil {
			a.invalidResult(w, r, rn, rcpt, err)
			return
		}
		redacted = rr.Redact()
		stored.Reply = rr
	} else {
		res, err := findings.ParseResult(rep.Result)
		if err == nil && rep.Protocol >= 2 {
			// Runners of protocol 2 quote evidence for every finding;
			// older runners' findings go on unchecked by quote.
			err = res.RequireEvidence()
		}
		if err != nil {
			a.invalidResult(w, r, rn, rcpt, err)
			return
		}
		redacted = res.Redact()
		summary = runstate.Text(res.Summary)
		files := res.Checked.Files
		if len(files) == 0 {
			files = rep.Stats.FilesRead
		}
		if len(files) > maxFilesRecorded {
			files = files[:maxFilesRecorded]
		}
		stored.Review = res
		stored.Checked = &findings.Coverage{
			Files: storable(files), Skills: storable(res.Checked.Skills), FilesRead: storable(rep.Stats.FilesRead),
			Evidence: evidenceRecord(rep.Evidence), Samples: samplesRecord(rep.Stats.Samples),
			Verify: verifyRecord(rep.Stats.Verify),
		}
	}
	message := "The runner reported its result."
	if stored.Checked != nil && stored.Checked.Samples != nil {
		message = samplesMessage(rep.Stats.Samples)
	}
	if stored.Checked != nil && stored.Checked.Verify != nil {
		message += verifyMessage(stored.Checked.Verify)
	}
	legacy, err := legacyColumns(stored, rep.Result, redacted)
	if err != nil {
		a.log.Error("result: encode", "run_id", rn.ID, "err", err)
		server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
		return
	}
	err = runstate.Transition(ctx, a.cfg.DB.Client, rn.ID, runstate.Change{
		From: []run.Status{run.StatusRunning}, To: run.StatusPublishing, Message: message,
		Set: func(u *ent.RunUpdate) {
			u.SetResult(stored).SetSummary(summary)
			legacy(u)
			stats(u)
		},
	})
	if !a.transitioned(w, r, rn, tok, body, err) {
		return
	}
	log.Info("result accepted", "kind", rn.Kind)
	a.notify(ctx, wakeup.TopicPublish)
	server.WriteJSON(w, http.StatusOK, runnerproto.ReportAck{Status: "accepted"})
}

// legacyColumns sets the result_json and checked columns schema-2 binaries
// read (MinCompatible 2: one may still publish or show a run this release
// accepted), as schema 2 wrote them: the report's result, re-encoded only
// when redaction changed it. Nothing in this release reads them for such a
// run; a release whose MinCompatible is 3 stops writing them.
func legacyColumns(st *findings.Stored, raw []byte, redacted bool) (func(*ent.RunUpdate), error) {
	b := raw
	if redacted {
		var v any = st.Review
		if st.Reply != nil {
			v = st.Reply
		}
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("result json: %w", err)
		}
	}
	checked := st.Checked.Map()
	return func(u *ent.RunUpdate) {
		u.SetResultJSON(string(b))
		if checked != nil {
			u.SetChecked(checked)
		}
	}, nil
}

// storable copies s (never nil) with each entry made storable (runstate.Text).
func storable(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = runstate.Text(x)
	}
	return out
}

// transitioned answers a lost race (a concurrent identical report won) or an
// error; it reports whether the caller should answer "accepted".
func (a *API) transitioned(w http.ResponseWriter, r *http.Request, rn *ent.Run, tok string, body []byte, err error) bool {
	if err == nil {
		return true
	}
	if errors.Is(err, runstate.ErrConflict) {
		now, qerr := a.cfg.DB.Run.Get(r.Context(), rn.ID)
		if qerr == nil && equalHex(receipt(hashToken(tok), body), now.ResultHash) {
			server.WriteJSON(w, http.StatusOK, runnerproto.ReportAck{Status: "already_accepted"})
			return false
		}
		server.WriteError(w, http.StatusConflict, codeConflict, "the run is no longer running")
		return false
	}
	a.log.Error("result: store", "run_id", rn.ID, "err", redact.Error(err))
	server.WriteError(w, http.StatusInternalServerError, codeInternal, "internal error")
	return false
}

// invalidResult fails the run with the validation error and answers 422.
func (a *API) invalidResult(w http.ResponseWriter, r *http.Request, rn *ent.Run, rcpt string, err error) {
	msg, _ := capString(redact.Error(err), maxReasonBytes)
	a.failRun(w, r, rn, rcpt, "The agent's result was not valid: "+msg, "")
}

// rejectReport fails the run for a malformed report and answers 422.
func (a *API) rejectReport(w http.ResponseWriter, r *http.Request, rn *ent.Run, rcpt, reason, detail string) {
	a.failRun(w, r, rn, rcpt, reason, detail)
}

func (a *API) failRun(w http.ResponseWriter, r *http.Request, rn *ent.Run, rcpt, reason, detail string) {
	ctx := r.Context()
	err := runstate.Transition(ctx, a.cfg.DB.Client, rn.ID, runstate.Change{
		From: []run.Status{run.StatusRunning}, To: run.StatusFailed, Message: reason, Detail: detail,
		Set: func(u *ent.RunUpdate) {
			u.SetFailureReason(reason).SetFailureDetail(redact.String(detail)).SetRunTokenHash("").SetResultHash(rejectedPrefix + rcpt)
		},
	})
	if err != nil && !errors.Is(err, runstate.ErrConflict) {
		a.log.Error("result: fail run", "run_id", rn.ID, "err", redact.Error(err))
	}
	a.log.Warn("result rejected", "run_id", rn.ID, "reason", reason)
	a.notify(ctx, wakeup.TopicFinish)
	server.WriteError(w, http.StatusUnprocessableEntity, codeInvalid, reason)
}

// evidenceRecord is the runner's evidence check as stored with the result
// (Coverage.Evidence): its counts and the dropped findings (path, line,
// title, reason; redacted and bounded). The runner is not trusted for it:
// the publisher checks every finding again.
func evidenceRecord(ev *runnerproto.EvidenceReport) *findings.RunnerEvidence {
	if ev == nil {
		return nil
	}
	dropped := []findings.DroppedFinding{}
	for i, d := range ev.DroppedFindings {
		if i == findings.MaxFindings {
			break
		}
		title, _ := capString(runstate.Text(redact.String(d.Title)), findings.MaxTitleBytes)
		path, _ := capString(runstate.Text(d.Path), findings.MaxPathBytes)
		reason, _ := capString(runstate.Text(d.Reason), maxReasonBytes)
		dropped = append(dropped, findings.DroppedFinding{Path: path, Line: max(0, d.Line), Title: title, Reason: reason})
	}
	return &findings.RunnerEvidence{
		Kept: bounded(ev.Kept), Moved: bounded(ev.Moved), Dropped: bounded(ev.Dropped),
		Unchecked: bounded(ev.Unchecked), DroppedFindings: dropped,
	}
}

// bounded is a count the runner reported, within what a result can hold.
func bounded(n int) int { return min(max(0, n), findings.MaxFindings) }
