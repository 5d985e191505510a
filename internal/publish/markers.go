package publish

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Hidden markers make publishing idempotent. Chakshu appends them, one per
// line, at the very end of what it posts, after all agent text; only that
// trailing block is read back, so a marker-looking string inside agent text
// (even inside a code block, where it is not neutralised) is never believed.
//
//	<!-- chakshu:finding:<hidden_id> -->   an inline comment, or a finding in a review body
//	<!-- chakshu:run:<run_id> -->          the review (or comment) a run posted
//	<!-- chakshu:reviewer:<name> -->       the reviewer that posted it
//	<!-- chakshu:reply:<run_id> -->        a reply run's answer
//	<!-- chakshu:backtest:<reviewer> -->   a backtest's comparison on a reviewers-repo PR

// Marker kinds.
const (
	kindFinding  = "finding"
	kindRun      = "run"
	kindReviewer = "reviewer"
	kindReply    = "reply"
	kindBacktest = "backtest"
)

var markerRE = regexp.MustCompile(`^<!-- chakshu:(finding|run|reviewer|reply|backtest):([A-Za-z0-9._-]{1,100}) -->$`)

func marker(kind, value string) string { return fmt.Sprintf("<!-- chakshu:%s:%s -->", kind, value) }

// FindingMarker is the hidden-ID marker of a finding.
func FindingMarker(hiddenID string) string { return marker(kindFinding, hiddenID) }

// RunMarker is the marker of everything run id posted.
func RunMarker(runID int) string { return marker(kindRun, strconv.Itoa(runID)) }

// ReplyMarker is the marker of a reply run's answer.
func ReplyMarker(runID int) string { return marker(kindReply, strconv.Itoa(runID)) }

// BacktestMarker is the marker of the backtest comparison of reviewer's
// change: one comment per reviewer on a reviewers-repository pull request,
// edited when the backtest runs again.
func BacktestMarker(reviewer string) string { return marker(kindBacktest, reviewer) }

// Markers are the hidden markers at the end of one posted body.
type Markers struct {
	// Findings are hidden IDs, in body order.
	Findings []string
	// Run is the run that posted the body; 0 when absent.
	Run int
	// Reply is the reply run whose answer this is; 0 when absent.
	Reply    int
	Reviewer string
	// Backtest is the reviewer whose backtest comparison this is; "" when absent.
	Backtest string
}

// Any reports whether the body carried a Chakshu marker at all.
func (m Markers) Any() bool {
	return len(m.Findings) > 0 || m.Run != 0 || m.Reply != 0 || m.Reviewer != "" || m.Backtest != ""
}

// ParseMarkers reads the trailing marker block of body.
func ParseMarkers(body string) Markers {
	var m Markers
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	i := len(lines) - 1
	for ; i >= 0; i-- {
		ln := strings.TrimSpace(lines[i])
		if ln == "" {
			continue
		}
		sm := markerRE.FindStringSubmatch(ln)
		if sm == nil {
			break
		}
		switch sm[1] {
		case kindFinding:
			m.Findings = append(m.Findings, sm[2])
		case kindRun:
			m.Run, _ = strconv.Atoi(sm[2])
		case kindReply:
			m.Reply, _ = strconv.Atoi(sm[2])
		case kindReviewer:
			m.Reviewer = sm[2]
		case kindBacktest:
			m.Backtest = sm[2]
		}
	}
	// Read backwards; restore body order.
	for a, b := 0, len(m.Findings)-1; a < b; a, b = a+1, b-1 {
		m.Findings[a], m.Findings[b] = m.Findings[b], m.Findings[a]
	}
	return m
}
