package outcomes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A reply's stance on the finding it answers.
const (
	NoStance = iota
	// Wrong: the reply says the finding is wrong (a false positive, by design…).
	Wrong
	// Agrees: the reply agrees (good catch, fixed, will fix…).
	Agrees
)

// Simple phrase lists, deliberately short: a reply that says neither leaves
// the finding to the other facts. A phrase right after "not " or "n't " does
// not count ("not a false positive", "isn't fixed").
var (
	wrongPhrases = []string{
		"false positive", "not a bug", "not an issue", "not a problem", "not applicable",
		"doesn't apply", "does not apply", "this is wrong", "that's wrong", "that is wrong",
		"is incorrect", "won't fix", "wont fix", "wontfix", "intentional", "by design",
		"as intended", "disagree", "not relevant", "irrelevant",
	}
	agreePhrases = []string{
		"good catch", "nice catch", "great catch", "agreed", "i agree", "you're right",
		"you are right", "fixed", "will fix", "done", "makes sense", "good point", "thanks", "thank you", "👍",
	}
)

// Stance reads a person's reply: Wrong, Agrees or NoStance. Quoted lines
// ("> …") and code are not the person's words and are skipped; "wrong"
// wins over "agrees" ("thanks, but this is a false positive").
func Stance(body string) int {
	var b strings.Builder
	fence := false
	for _, ln := range strings.Split(body, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(t, ">") {
			continue
		}
		b.WriteString(strings.ToLower(strings.ReplaceAll(t, "’", "'")))
		b.WriteByte('\n')
	}
	text := b.String()
	switch {
	case saysAny(text, wrongPhrases):
		return Wrong
	case saysAny(text, agreePhrases):
		return Agrees
	}
	return NoStance
}

func saysAny(text string, phrases []string) bool {
	for _, p := range phrases {
		if says(text, p) {
			return true
		}
	}
	return false
}

// says reports whether phrase stands in text as words of its own, not
// negated by one of the two words before it.
func says(text, phrase string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], phrase)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if !edge(text[:i], true) || !edge(text[i+len(phrase):], false) {
			continue
		}
		if negated(text[:i]) {
			continue
		}
		return true
	}
}

// negated reports whether one of the last two words of before negates.
func negated(before string) bool {
	words := strings.Fields(before[strings.LastIndexByte(before, '\n')+1:])
	for k := len(words) - 1; k >= 0 && k >= len(words)-2; k-- {
		w := strings.Trim(words[k], ",.;:!?")
		if w == "not" || w == "never" || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

// edge reports whether the text next to a match (what comes before it, or
// after it) does not continue a word.
func edge(s string, before bool) bool {
	if s == "" {
		return true
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s)
	} else {
		r, _ = utf8.DecodeRuneInString(s)
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
}
