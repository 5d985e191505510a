package events

import (
	"fmt"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// The sentences Chakshu says in pull requests. They are public: no raw errors,
// only what the person can act on.

func helpMessage(slug string, known []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Here is what I can do on a pull request:\n\n")
	fmt.Fprintf(&b, "- `@%s review` runs this repository's default reviewers.\n", slug)
	fmt.Fprintf(&b, "- `@%s review security perf` runs the reviewers you name.\n", slug)
	fmt.Fprintf(&b, "- `@%s review all` runs every reviewer.\n", slug)
	fmt.Fprintf(&b, "- Text on the lines after the command is passed to the reviewers as your note.\n")
	fmt.Fprintf(&b, "- In a thread I started, just reply and I will answer; `@%s remember <what>` keeps a learning for future reviews of that file (add \"for this directory\" to cover its folder).\n", slug)
	fmt.Fprintf(&b, "- `@%s help` shows this message.\n", slug)
	if len(known) > 0 {
		fmt.Fprintf(&b, "\nReviewers: %s.\n", codeList(known))
	}
	return b.String()
}

func notAllowedMessage(login string) string {
	return fmt.Sprintf("Thanks for asking, @%s! Only people with write access to this repository can ask me for a review. "+
		"A maintainer can start one for you.", login)
}

func replyNotAllowedMessage(login string) string {
	return fmt.Sprintf("Thanks for your reply, @%s! Only people with write access to this repository can get answers from me in review threads, "+
		"so I have not looked at this one. A maintainer can reply for you.", login)
}

func replyLimitMessage(login string, perPR bool, limit int, retry time.Time) string {
	what := fmt.Sprintf("replies from you in the last hour (at most %d)", limit)
	if perPR {
		what = fmt.Sprintf("replies on this pull request in the last hour (at most %d)", limit)
	}
	return fmt.Sprintf("Thanks, @%s! I have answered as many %s as I may, so I have not looked at this one. "+
		"Please reply again after %s.", login, what, retry.Format("15:04 MST on 2 Jan"))
}

func rememberNotAllowedMessage(login string) string {
	return fmt.Sprintf("Thanks, @%s! Only people with write access to this repository can teach me a learning for future reviews, "+
		"so I have not stored this one.", login)
}

func unknownReviewersMessage(unknown, known []string, queued int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "I don't know the reviewer%s %s.", plural(len(unknown)), codeList(unknown))
	if len(known) > 0 {
		fmt.Fprintf(&b, " The reviewers I know are %s.", codeList(known))
	} else {
		fmt.Fprintf(&b, " No reviewers are set up for this installation yet.")
	}
	if queued > 0 {
		fmt.Fprintf(&b, " I started the other %d you asked for.", queued)
	}
	return b.String()
}

func noReviewersMessage() string {
	return "There are no reviewers to run here: none are set up for this installation, or this repository's `.github/chakshu.yml` names none that exist."
}

func unknownCommandMessage(slug, word string, known []string) string {
	return fmt.Sprintf("I don't know the command `%s`.\n\n", sanitizeWord(word)) + helpMessage(slug, known)
}

func rememberedMessage(directive, glob string) string {
	return fmt.Sprintf("Noted. I will keep this in mind in future reviews of files matching `%s` in this repository:\n\n> %s",
		glob, strings.NewReplacer("\n", "\n> ", "@", "@\u200b").Replace(directive))
}

func rememberInvalidMessage(problem string) string {
	return fmt.Sprintf("I could not store that learning (%s).", sanitizeWord(problem))
}

func rememberEmptyMessage(slug string) string {
	return fmt.Sprintf("Tell me what to remember after the command, e.g. `@%s remember errors here are wrapped on purpose`.", slug)
}

func configErrorMessage(branch, problem string) string {
	return fmt.Sprintf("`%s` on `%s` is not valid, so I am using the defaults for this pull request until it is fixed:\n\n```\n%s\n```",
		reviewerconfig.RepoConfigPath, branch, strings.ReplaceAll(problem, "```", "'''"))
}

func codeList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + sanitizeWord(x) + "`"
	}
	return strings.Join(q, ", ")
}

// sanitizeWord keeps a user-supplied word from breaking out of inline code or pinging anyone.
func sanitizeWord(s string) string {
	s = strings.NewReplacer("`", "'", "@", "@\u200b", "\n", " ").Replace(s)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
