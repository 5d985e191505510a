package scriptedmodel

import (
	"regexp"
	"strings"
)

// `chakshu eval --judge` asks whether a finding and an expected review
// comment describe the same problem (internal/eval/judge.tmpl). The script
// answers SAME when the two texts share a topic of the rules it reviews by,
// else DIFFERENT: deterministic, and wrong in the ways a keyword match is, so
// tests can see the judge change a matching.

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
	return strings.Contains(prompt, "<finding>") && strings.Contains(prompt, "<expected_comment>")
}

// judgeAnswer answers a judge prompt.
func judgeAnswer(prompt string) string {
	f := strings.ToLower(between1(prompt, "<finding>", "</finding>"))
	e := strings.ToLower(between1(prompt, "<expected_comment>", "</expected_comment>"))
	for _, re := range judgeTopics {
		if re.MatchString(f) && re.MatchString(e) {
			return "SAME"
		}
	}
	return "DIFFERENT"
}
