package job

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/textcut"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// fenceTags are the tags untrusted data is fenced with; data that contains one
// of them has it neutralised so it cannot close its fence or open another.
var fenceTags = regexp.MustCompile(`(?i)<(/?)\s*(pr_title|pr_body|pr_author|head_ref|pr_files|filtered_files|requester_note|diff|thread|comment|finding|excerpt|repository_instructions|review_learnings)\b`)

// fence wraps untrusted text in <tag>…</tag>.
func fence(tag, s string) string {
	s = fenceTags.ReplaceAllString(s, "&lt;$1$2")
	s = strings.TrimRight(s, "\n")
	return "<" + tag + ">\n" + s + "\n</" + tag + ">"
}

// lines joins paths one per line; a path with a line break is escaped so a
// path cannot add a fake entry.
func lines(ps []string) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(p)
	}
	return strings.Join(out, "\n")
}

// thread renders a thread's comments, each in its own fenced comment.
func thread(cs []runnerproto.Comment) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		who := "@" + c.Author
		if c.Bot {
			who += " (bot)"
		}
		parts = append(parts, who+" wrote:\n"+fence("comment", c.Body))
	}
	return strings.Join(parts, "\n\n")
}

var prompts = template.Must(template.New("").Funcs(template.FuncMap{"fence": fence, "lines": lines, "thread": thread}).
	ParseFS(promptFS, "prompts/*.tmpl"))

// promptData is what the prompt templates see.
type promptData struct {
	Reviewer, Repository string
	PR                   runnerproto.PR
	Note                 string
	Instructions         string
	Files, FilteredFiles []string
	Diff                 string
	DiffTruncated        bool
	DiffLimit            int
	IncrementalSince     string
	FullReviewReason     string
	DiffNote             string // what the diff lacks, for the agent
	Learnings            []runnerproto.Learning
	LearningsMarker      string
	Tools                []runnerproto.ToolDef
	MaxFindings          int
	Reply                *runnerproto.Reply
	Remember             string
}

// maxPromptDiff caps the diff put in the prompt; the job carries it whole.
const maxPromptDiff = 300_000

// renderPrompts renders the system and user prompts of a review or reply.
func renderPrompts(kind string, d promptData) (system, user string, err error) {
	if d.DiffLimit == 0 {
		d.DiffLimit = maxPromptDiff
	}
	if len(d.Diff) > d.DiffLimit {
		d.Diff = textcut.Bytes(d.Diff, d.DiffLimit)
		d.DiffTruncated = true
	}
	var sys, usr strings.Builder
	if err := prompts.ExecuteTemplate(&sys, kind+"_system.tmpl", d); err != nil {
		return "", "", fmt.Errorf("render %s system prompt: %w", kind, err)
	}
	if err := prompts.ExecuteTemplate(&usr, kind+"_user.tmpl", d); err != nil {
		return "", "", fmt.Errorf("render %s prompt: %w", kind, err)
	}
	return sys.String(), usr.String(), nil
}
