package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"sort"
	"strings"
)

// `chakshu eval --judge` asks two questions (internal/eval/judge.tmpl and
// extract.tmpl), as the Martian benchmark's judge does
// (offline/code_review_benchmark/step2_extract_comments.py,
// step3_judge_comments.py): list the problems a review's comments raise, and
// say whether a candidate problem is a golden comment's, as JSON
// {reasoning, match, confidence}. The script answers deterministically and
// wrong in the ways a keyword match is, so tests can see judging change the
// counts:
//
//   - a verdict matches when the two texts share a topic of the rules it
//     reviews by; its confidence grows with the words they share, so of two
//     candidates on one topic the closer wording is the surer match (best
//     match matters), and a candidate naming two topics matches a golden
//     comment on each (one candidate, several matches);
//   - like a real model, it sometimes wraps its JSON in a Markdown code fence
//     (Anthropic's models often do unless prefilled; the benchmark strips
//     fences), which the caller must read through;
//   - extraction rewords: one issue per bullet or per comment, as
//     "title: first sentence", and leaves out counts of findings.

// judgeTopics are the topics, each a pattern over lower-cased text.
var judgeTopics = map[string]*regexp.Regexp{
	"secret": regexp.MustCompile(`secret|password|passwd|credential|api[ _-]?key|access key|\btoken\b|hard-?coded`),
	"sql":    regexp.MustCompile(`\bsql\b|injection|\bquer(y|ies)\b`),
	"error":  regexp.MustCompile(`\berror|\berr\b|ignored|discard|swallow|unchecked|not handled`),
	"todo":   regexp.MustCompile(`\btodo\b|\bfixme\b|unresolved`),
	"debug":  regexp.MustCompile(`debug|console\.log|\bprint`),
	"access": regexp.MustCompile(`access control|authori[sz]|\bowns?\b|permission`),
}

func isJudgePrompt(prompt string) bool {
	return (strings.Contains(prompt, "<golden_comment>") && strings.Contains(prompt, "<candidate_issue>")) ||
		strings.Contains(prompt, "<review_comments>")
}

// judgeAnswer answers a judge or extraction prompt.
func judgeAnswer(prompt string) string {
	var v any
	if strings.Contains(prompt, "<review_comments>") {
		v = map[string][]string{"issues": extractIssues(between1(prompt, "<review_comments>", "</review_comments>"))}
	} else {
		v = verdictFor(between1(prompt, "<golden_comment>", "</golden_comment>"), between1(prompt, "<candidate_issue>", "</candidate_issue>"))
	}
	b, _ := json.Marshal(v)
	h := fnv.New32a()
	h.Write([]byte(prompt))
	if h.Sum32()%2 == 0 {
		return "```json\n" + string(b) + "\n```"
	}
	return string(b)
}

type verdict struct {
	Reasoning  string  `json:"reasoning"`
	Match      bool    `json:"match"`
	Confidence float64 `json:"confidence"`
}

func verdictFor(golden, candidate string) verdict {
	g, c := strings.ToLower(golden), strings.ToLower(candidate)
	var shared []string
	for name, re := range judgeTopics {
		if re.MatchString(g) && re.MatchString(c) {
			shared = append(shared, name)
		}
	}
	if len(shared) == 0 {
		return verdict{Reasoning: "The two describe different problems.", Match: false, Confidence: 0.9}
	}
	sort.Strings(shared)
	conf := 0.5 + 0.45*overlap(g, c)
	return verdict{Reasoning: fmt.Sprintf("Both are about the same %s problem.", strings.Join(shared, " and ")), Match: true,
		Confidence: math.Round(conf*100) / 100}
}

var wordRE = regexp.MustCompile(`[a-z0-9_]{4,}`)

// overlap is the share of the golden comment's words of four letters or more
// that the candidate uses too.
func overlap(g, c string) float64 {
	gw := map[string]bool{}
	for _, w := range wordRE.FindAllString(g, -1) {
		gw[w] = true
	}
	if len(gw) == 0 {
		return 0
	}
	cw := map[string]bool{}
	for _, w := range wordRE.FindAllString(c, -1) {
		cw[w] = true
	}
	n := 0
	for w := range gw {
		if cw[w] {
			n++
		}
	}
	return float64(n) / float64(len(gw))
}

var (
	bulletRE = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s+(.*)$`)
	// metaRE are comments that count or sum up rather than raise a problem
	// (the scripted reviewer's summaries).
	metaRE = regexp.MustCompile(`(?i)^(found \d+ issues?\b|read \d+ changed files)`)
)

// extractIssues lists the problems in a review's joined comments.
func extractIssues(text string) []string {
	issues := []string{}
	for _, part := range strings.Split(text, "\n---\n") {
		part = strings.TrimSpace(part)
		if part == "" || metaRE.MatchString(part) {
			continue
		}
		var bullets []string
		for _, l := range strings.Split(part, "\n") {
			if m := bulletRE.FindStringSubmatch(l); m != nil {
				bullets = append(bullets, strings.TrimSpace(m[1]))
			}
		}
		if len(bullets) > 0 {
			issues = append(issues, bullets...)
			continue
		}
		title, body, _ := strings.Cut(part, "\n\n")
		title = strings.Trim(strings.TrimSpace(title), "*#` ")
		body = strings.Join(strings.Fields(body), " ")
		if i := strings.Index(body, ". "); i >= 0 {
			body = body[:i+1]
		}
		if body != "" {
			title += ": " + body
		}
		issues = append(issues, title)
	}
	return issues
}
