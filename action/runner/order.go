package runner

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// Diverse passes (issue 41 item 1). Passes that see the same prompt in the
// same order make the same mistakes; Cursor's Bugbot gives each of its
// parallel passes the diff in a different order for that reason. Each pass
// here sees the PR's files, in the <pr_files> list and the <diff>, in its
// own deterministic order: pass 1 the server's, pass 2 the reverse, later
// passes a shuffle seeded by the pass number. The tools and system prompt,
// the prefix the prompt cache keeps (action/agent), are the same for every
// pass, so passes 2..N still read them from the cache.

// passPrompt is the job's prompt for pass (1-based), its files reordered.
// The pass's lens (lensFor) goes to the agent's first turn (agent.Config.Lens).
func passPrompt(job *runnerproto.Job, pass int) string {
	p := reorderFenced(job.Prompt, "pr_files", pass, splitLines)
	return reorderFenced(p, "diff", pass, splitDiff)
}

// lensFor is the focus of pass (1-based): the reviewer's lenses, one a pass
// in turn; empty when the reviewer declares none.
func lensFor(job *runnerproto.Job, pass int) string {
	if len(job.Lenses) == 0 {
		return ""
	}
	return job.Lenses[(pass-1)%len(job.Lenses)]
}

// reorderFenced reorders the parts (split) of the text inside the first
// <tag>…</tag> of s for the pass, keeping the white space around them; s
// is unchanged when the fence is missing. Untrusted text cannot carry the
// tag (internal/job neutralises it), so the first fence is the server's.
func reorderFenced(s, tag string, pass int, split func(string) []string) string {
	open, close := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s, open)
	if i < 0 {
		return s
	}
	start := i + len(open)
	j := strings.Index(s[start:], close)
	if j < 0 {
		return s
	}
	inner := s[start : start+j]
	body := strings.TrimSpace(inner)
	if body == "" {
		return s
	}
	lead := inner[:strings.Index(inner, body)]
	trail := inner[len(lead)+len(body):]
	parts := order(split(body), pass)
	return s[:start] + lead + strings.Join(parts, "\n") + trail + s[start+j:]
}

// order is parts in the pass's order: pass 1 as they are, pass 2 reversed,
// later passes shuffled by a generator seeded with the pass.
func order(parts []string, pass int) []string {
	out := append([]string(nil), parts...)
	switch {
	case pass <= 1 || len(out) < 2:
	case pass == 2:
		slices.Reverse(out)
	default:
		r := rand.New(rand.NewPCG(uint64(pass), uint64(len(out))))
		r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	}
	return out
}

// splitLines splits a file list into its lines (joined again with "\n").
func splitLines(s string) []string { return strings.Split(s, "\n") }

// splitDiff splits a unified diff into its per-file sections, each from a
// "diff --git " line to the newline before the next (joined again with
// "\n"); text before the first section stays with it.
func splitDiff(s string) []string {
	var out []string
	for {
		k := strings.Index(s, "\ndiff --git ")
		if k < 0 {
			return append(out, s)
		}
		out = append(out, s[:k])
		s = s[k+1:]
	}
}
