package runner

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// summaryMu serialises writes to the job summary.
var summaryMu sync.Mutex

var severityIcon = map[findings.Severity]string{
	findings.Blocker: "🔴", findings.Major: "🟠", findings.Minor: "🟡", findings.Nit: "🔵",
}

// Summary renders the job summary markdown.
func Summary(job *runnerproto.Job, out *agent.Outcome, filesRead, skills []string, failure *string, took time.Duration) string {
	var b strings.Builder
	title := "Chakshu"
	if job != nil {
		title = fmt.Sprintf("Chakshu · %s", cell(job.Reviewer))
		if job.Kind == "reply" {
			title += " · reply"
		}
	}
	fmt.Fprintf(&b, "## %s\n\n", title)
	if failure != nil {
		fmt.Fprintf(&b, "**The review failed:** %s.\n\n", cell(*failure))
	}
	if out != nil && out.Result != nil && job != nil {
		if job.Kind == "reply" {
			if r := out.Result.Reply; r != nil {
				fmt.Fprintf(&b, "**Verdict:** %s\n\n%s\n\n", r.Verdict, quote(r.Reply))
			}
		} else if r := out.Result.Review; r != nil {
			fmt.Fprintf(&b, "%s\n\n", quote(r.Summary))
			if len(r.Findings) == 0 {
				b.WriteString("No findings.\n\n")
			} else {
				b.WriteString("| Severity | Location | Finding |\n|---|---|---|\n")
				for _, f := range r.Findings {
					fmt.Fprintf(&b, "| %s %s | `%s:%d` | %s |\n", severityIcon[f.Severity], f.Severity, strings.ReplaceAll(cell(f.Path), "`", "'"), f.Line, cell(f.Title))
				}
				b.WriteString("\n")
			}
		}
	}
	if out != nil {
		fmt.Fprintf(&b, "**Cost (estimate):** $%.4f · **Model calls:** %d · **Tool calls:** %d · **Tokens:** %d in, %d out, %d cache read · **Duration:** %s\n\n",
			out.CostUSD, out.Turns, out.ToolCalls, out.Usage.Input+out.Usage.CacheWrite, out.Usage.Output, out.Usage.CacheRead, took.Round(time.Second))
	}
	if len(skills) > 0 {
		fmt.Fprintf(&b, "**Skills used:** %s\n\n", cell(strings.Join(skills, ", ")))
	}
	if len(filesRead) > 0 {
		fmt.Fprintf(&b, "<details><summary>Files read (%d)</summary>\n\n", len(filesRead))
		for _, f := range filesRead {
			fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(cell(f), "`", "'"))
		}
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// cell makes untrusted text safe inside a table cell or a line: one line,
// no pipes, no HTML.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

func quote(s string) string {
	s = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}

func writeSummary(path string, job *runnerproto.Job, out *agent.Outcome, set *tools.Set, verify *findings.Verification, failure *string, took time.Duration) {
	if path == "" {
		return
	}
	var files, skills []string
	if set != nil {
		files, skills = set.FilesRead(), set.SkillsUsed()
	}
	// The reviews of one job share the file: one section each, whole.
	summaryMu.Lock()
	defer summaryMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(Summary(job, out, files, skills, failure, took) + verifySummary(verify))
}

// verifySummary is the job summary's line on the verification step, its
// cost apart from the passes' ("" without one).
func verifySummary(v *findings.Verification) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf("\n**Verification:** %d candidates · %d confirmed · %d refuted · %d unverified (minimum confidence %d) · **Cost (estimate):** $%.4f in %d model calls\n",
		v.Candidates, v.Confirmed, v.Refuted, v.Unverified, v.MinConfidence, v.CostUSD, v.Turns)
}
