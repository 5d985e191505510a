package scriptedmodel

import (
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Rewording (Config.Reword). A real model does not repeat itself: asked
// twice about one change, it words the same finding differently, names a
// line or two away from the one it named before, and puts it a severity
// step up or down; and it reports, with a real quote, things that are not
// so. The open Martian code-review benchmark's own data show candidates of
// different tools matching one golden comment almost never share a first
// line (issue 41). With Reword the scripted model does all of that,
// deterministically: each finding's wording, line shift and severity step
// come from a hash of the finding (its hidden ID before rewording and its
// line), the pass (action/agent's pass text), the first user message
// without the pass text (it names the head commit: a run on a new head
// words it anew) and Config.RewordSeed.

// rewording is one way a finding of a kind is worded: key is what the
// script's own title says (it may carry a quoted snippet after it) and
// body its body; alts are the other wordings, title part and body.
type rewording struct {
	key, body string
	alts      [][2]string
}

// rewordings are the wordings of the rule and hunch findings (rules.go,
// passes.go) and of the planted false findings (plantedFalse). The script's
// own wording is variant 0.
var rewordings = []rewording{
	{key: "SQL built from strings", body: "The SQL statement is assembled from strings, so a value containing quotes changes the query (SQL injection). Pass the values as query parameters (`?` / `$1` placeholders) instead.",
		alts: [][2]string{
			{"Possible SQL injection: query built by string concatenation", "User-supplied values are concatenated into the SQL text; a quote in them rewrites the query. Use bound parameters."},
			{"Query string concatenates values into SQL", "Building SQL by concatenating strings lets input change the statement (injection). Bind the values as placeholders instead."},
		}},
	{key: "Error ignored", body: "The error returned here is discarded, so a failure goes unnoticed and the code carries on with a bad state. Handle or return it.",
		alts: [][2]string{
			{"Returned error is silently discarded", "This call's error is dropped: a failure is never noticed and execution continues in a bad state. Return or handle the error."},
			{"Unchecked error from this call", "The error is assigned to the blank identifier and ignored, so failures go unnoticed. Check and handle it."},
		}},
	{key: "Error checked but not handled", body: "`if err != nil {}` swallows the error: nothing is returned, logged or retried.",
		alts: [][2]string{
			{"Empty error branch swallows the error", "The `if err != nil` branch is empty: the error is checked and then swallowed, never returned or logged."},
			{"Error is checked, then dropped", "The error check has an empty body, so the error is swallowed: nothing is returned, logged or retried."},
		}},
	{key: "Unresolved TODO", body: "A TODO is added with this change. Track it in an issue or resolve it before merging.",
		alts: [][2]string{
			{"TODO left unresolved", "This change adds a TODO marker; resolve it or track the TODO in an issue before merging."},
			{"Leftover TODO comment", "A leftover TODO comment comes in with this change; track it in an issue or resolve it."},
		}},
	{key: "Unresolved FIXME", body: "A FIXME is added with this change. Track it in an issue or resolve it before merging.",
		alts: [][2]string{
			{"FIXME left unresolved", "This change adds a FIXME marker; resolve it or track the FIXME in an issue before merging."},
			{"Leftover FIXME comment", "A leftover FIXME comment comes in with this change; track it in an issue or resolve it."},
		}},
	{key: "Debug output left in", body: "This looks like debugging output. Remove it or use the project's logger.",
		alts: [][2]string{
			{"Leftover debug output", "Leftover debugging output: remove the print or send it through the project's logger."},
			{"Debugging print left in the code", "A debugging print was left in; remove it or use the project's logger instead."},
		}},
	{key: "Hard-coded AWS access key", body: "An AWS access key id is committed in the source. Anyone who can read the repository can use it; rotate the key and load it from the environment or a secret store.",
		alts: [][2]string{
			{"AWS access key committed in source", "An AWS access key is hard-coded and committed; anyone with read access can use it. Rotate the key and load it from the environment."},
			{"Hard-coded AWS key in the code", "The AWS access key id is in the source. Rotate it and read the key from the environment or a secret store."},
		}},
	{key: "Hard-coded API key", body: "An API key (`sk-…`) is committed in the source. Rotate it and read it from the environment or a secret store.",
		alts: [][2]string{
			{"API key committed in source", "An API key is hard-coded and committed; rotate the key and load it from the environment or a secret store."},
			{"Hard-coded secret API key", "The source carries a secret API key literal. Rotate the key and read it from the environment."},
		}},
	{key: "Hard-coded credential", body: "A credential is written into the code as a string literal. It ends up in every clone and build log; read it from the environment or a secret store instead.",
		alts: [][2]string{
			{"Credential hard-coded as a literal", "A credential is hard-coded as a string literal and lands in every clone and build log; read the credential from the environment."},
			{"Hard-coded secret credential", "The credential is committed in the code as a literal; load it from the environment or a secret store instead."},
		}},
	{key: "Possible off-by-one in this loop", body: "The loop's bounds may skip the last element or run one past it; worth a second look.",
		alts: [][2]string{
			{"Loop bounds may be off by one", "The loop bounds may be off by one: the last element skipped, or one step past the end."},
			{"Possible off-by-one in the loop bound", "The loop condition may run one past the end or skip the last element."},
		}},
	{key: "Input may need validation", body: "A value from outside is used here; consider validating it before use.",
		alts: [][2]string{
			{"Input used without validation", "An outside input value is used here without validation; validate it first."},
			{"Unvalidated input", "The input value comes from outside and is used unvalidated; consider validating it."},
		}},
	{key: "could be clearer", body: "A more descriptive name would say what this does.",
		alts: [][2]string{
			{"could have a clearer name", "A clearer, more descriptive name would say what it does."},
			{"name could be more descriptive", "A more descriptive name would make clear what this does."},
		}},
	{key: plantedNilTitle, body: plantedNilBody,
		alts: [][2]string{
			{"Possible nil dereference of the result", "The value assigned here can be nil on the error path and is used without a nil check, which panics."},
			{"Result may be nil when used", "On failure this assignment leaves a nil value that is dereferenced later without a check."},
		}},
}

// reword returns f worded as variant v (0: the script's own wording).
func reword(f findings.Finding, v int) findings.Finding {
	if v == 0 {
		return f
	}
	for _, r := range rewordings {
		if !strings.Contains(f.Title, r.key) {
			continue
		}
		alt := r.alts[(v-1)%len(r.alts)]
		f.Title = strings.Replace(f.Title, r.key, alt[0], 1)
		if f.Body == r.body {
			f.Body = alt[1]
		}
		return f
	}
	return f
}

// variantOf picks a finding's wording, line shift and severity step for a
// pass: seeds mixed by FNV-1a.
func (m *model) variantOf(c *conversation, f *findings.Finding) uint32 {
	h := fnv.New32a()
	h.Write([]byte(f.ID()))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(f.Line)))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(c.pass())))
	h.Write([]byte{0})
	h.Write([]byte(withoutPass(c.prompt)))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(m.cfg.RewordSeed, 10)))
	return h.Sum32()
}

// withoutPass is the prompt without the pass text, so that the passes of
// one run differ by the pass number alone.
func withoutPass(prompt string) string { return passRE.ReplaceAllString(prompt, "") }

// leadIns are the openings a model puts before a finding's title, or not.
var leadIns = []string{"", "Possible bug: ", "Issue: ", "Problem: "}

// rewordAll words each of fs as a real model might this time: one of three
// wordings behind one of four openings (twelve titles, so two passes
// seldom word a finding alike), the line moved by -1, 0 or +1 (two in three findings stay
// where they were; the quote stays the real one), and the severity one
// step up or down in one finding of four.
func (m *model) rewordAll(c *conversation, fs []findings.Finding) []findings.Finding {
	out := make([]findings.Finding, 0, len(fs))
	for _, f := range fs {
		v := m.variantOf(c, &f)
		g := reword(f, int(v%3))
		g.Title = leadIns[(v/3)%uint32(len(leadIns))] + g.Title
		d := 0
		switch (v / 12) % 6 {
		case 0:
			d = 1
		case 1:
			d = -1
		}
		if g.Line+d >= 1 && (g.StartLine == 0 || g.StartLine+d >= 1) {
			g.Line += d
			if g.StartLine > 0 {
				g.StartLine += d
			}
		}
		switch (v / 72) % 8 {
		case 0:
			g.Severity = step(g.Severity, -1)
		case 1:
			g.Severity = step(g.Severity, +1)
		}
		out = append(out, g)
	}
	return out
}

// step moves s by d ranks, within blocker..nit.
func step(s findings.Severity, d int) findings.Severity {
	r := min(max(s.Rank()+d, 0), len(findings.Severities)-1)
	return findings.Severities[r]
}

// The planted false finding: on the first added line that assigns the
// result of a call, the claim that the value may be nil and is used
// unchecked, quoting the line. It is a plausible claim about real code that
// the code does not bear out (nothing shows the call returning nil), in
// every pass of every run: agreement between passes cannot remove it; a
// verification step that reads the code must.
const (
	plantedNilTitle = "Nil value used without a check"
	plantedNilBody  = "The call on this line can return nil, and the value is used below without a nil check, which would panic."
)

var assignCallRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)?\s*:?=\s*[A-Za-z_][A-Za-z0-9_.]*\(`)

// plantedFalse returns the planted false findings for the diff.
func plantedFalse(diff string) []findings.Finding {
	for _, l := range addedLines(diff) {
		if m := assignCallRE.FindStringSubmatch(l.Text); m != nil && m[1] != "_" && m[1] != "err" {
			return []findings.Finding{finding(l, findings.Major, "correctness", plantedNilTitle+": `"+m[1]+"`", plantedNilBody, nil)}
		}
	}
	return nil
}

// Planted reports whether f is a planted false finding of the rewording
// model, in any of its wordings (for tests and a verification double).
func Planted(f *findings.Finding) bool {
	for _, r := range rewordings {
		if r.key != plantedNilTitle {
			continue
		}
		if strings.Contains(f.Title, r.key) {
			return true
		}
		for _, a := range r.alts {
			if strings.Contains(f.Title, a[0]) {
				return true
			}
		}
	}
	return false
}

// Submit is the review result the model with cfg submits when asked for it
// at once (no tool call before), for system and the first user message
// prompt: what a review by it reports, without the HTTP round trip (tests
// that publish its findings).
func Submit(cfg Config, system, prompt string) findings.Result {
	m := &model{cfg: cfg}
	return m.result(&conversation{req: &request{}, system: system, prompt: prompt, tools: map[string]bool{},
		called: map[string]int{}, lastErrors: map[string]bool{}})
}
