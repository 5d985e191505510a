// Package commands parses the commands people give Chakshu in pull request
// comments (DESIGN §2.1, §6): "@<slug> review", "@<slug> review security perf",
// "@<slug> review all", "@<slug> help" and, in a reply, "@<slug> remember …".
//
// A command must start a line (up to three spaces of indentation, as in
// Markdown). Lines inside fenced code blocks, indented code and quoted lines
// ("> …") are never commands, so quoting someone's command does not repeat it.
// The first command of a comment counts; the text after the command line is
// the requester's note.
package commands

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// Verb is what a command asks for.
type Verb string

// Verbs.
const (
	// Review queues reviews: the repo's default reviewers, named ones, or all.
	Review Verb = "review"
	// Help lists the commands.
	Help Verb = "help"
	// Remember stores a review learning (in a reply in Chakshu's thread).
	Remember Verb = "remember"
	// Unknown is a mention of Chakshu at the start of a line with a verb it does not know.
	Unknown Verb = "unknown"
)

// Limits on what a comment can make Chakshu store.
const (
	// MaxNote caps the requester's note, in bytes.
	MaxNote = 4000
	// MaxDirective caps a remembered directive, in bytes (the learning's column holds 2000).
	MaxDirective = 2000
	// MaxNames caps how many reviewers one command may name.
	MaxNames = 20
)

// Command is one parsed command.
type Command struct {
	Verb Verb
	// All is set by "review all".
	All bool
	// Names are the reviewers named after "review", lower-cased, in order, without duplicates.
	Names []string
	// Note is the text after the command line (untrusted; for the prompt's fenced block).
	Note string
	// Directive is what "remember" asks to keep, without the scope phrase.
	Directive string
	// Directory is set when the directive says "for this directory" or "in this folder":
	// the learning covers the thread file's directory instead of the file.
	Directory bool
	// Word is the verb as written, for an Unknown command's answer.
	Word string
}

// Parse returns the first command addressed to @slug in body, if any. The slug
// is matched case-insensitively, with or without a "[bot]" suffix.
func Parse(body, slug string) (Command, bool) {
	slug = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(slug, "@")))
	if slug == "" || !utf8.ValidString(body) {
		return Command{}, false
	}
	body = strings.ReplaceAll(body, "\r\n", "\n")
	lines := strings.Split(body, "\n")
	var fence string // the open fence ("```" or "~~~" with its length), empty outside a block
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if fence != "" {
			if indent < 4 && closesFence(trimmed, fence) {
				fence = ""
			}
			continue
		}
		// Indented code (four spaces or a tab) and quotes are not commands.
		if indent >= 4 || strings.HasPrefix(trimmed, "\t") || strings.HasPrefix(trimmed, ">") {
			continue
		}
		if f := openFence(trimmed); f != "" {
			fence = f
			continue
		}
		rest, ok := mention(trimmed, slug)
		if !ok {
			continue
		}
		c := parseLine(rest)
		note := strings.TrimSpace(strings.Join(lines[i+1:], "\n"))
		switch c.Verb {
		case Remember:
			if c.Directive == "" { // "@chakshu remember" with the directive below
				c.Directive = note
			} else if note != "" {
				c.Directive += "\n" + note
			}
			c.Directive, c.Directory = scope(c.Directive)
			c.Directive = textcut.Bytes(c.Directive, MaxDirective)
		default:
			c.Note = textcut.Bytes(note, MaxNote)
		}
		return c, true
	}
	return Command{}, false
}

// mention strips "@slug" (optionally "@slug[bot]") from the start of line and
// returns the rest; the mention must end at a space, punctuation or the line end.
func mention(line, slug string) (string, bool) {
	if !strings.HasPrefix(line, "@") {
		return "", false
	}
	s := line[1:]
	if len(s) < len(slug) || !strings.EqualFold(s[:len(slug)], slug) {
		return "", false
	}
	s = s[len(slug):]
	if len(s) >= 5 && strings.EqualFold(s[:5], "[bot]") {
		s = s[5:]
	}
	if s != "" {
		r, _ := utf8.DecodeRuneInString(s)
		if r == '-' || r == '_' || r == '/' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return "", false // @chakshu-dev is someone else
		}
	}
	return strings.TrimLeft(s, " \t,:"), true
}

func parseLine(rest string) Command {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return Command{Verb: Help}
	}
	word := strings.ToLower(strings.TrimRight(fields[0], ".,:!"))
	switch word {
	case "review":
		c := Command{Verb: Review}
		seen := map[string]bool{}
		for _, f := range fields[1:] {
			for _, n := range strings.Split(f, ",") {
				n = strings.ToLower(strings.Trim(n, ".!;:\"'`"))
				if n == "" || seen[n] {
					continue
				}
				if n == "all" {
					c.All = true
					continue
				}
				if len(c.Names) < MaxNames {
					seen[n] = true
					c.Names = append(c.Names, n)
				}
			}
		}
		if c.All {
			c.Names = nil
		}
		return c
	case "help", "?":
		return Command{Verb: Help}
	case "remember":
		_, after, _ := strings.Cut(rest, fields[0])
		return Command{Verb: Remember, Directive: strings.TrimSpace(strings.TrimLeft(after, " \t:,"))}
	default:
		return Command{Verb: Unknown, Word: textcut.Bytes(fields[0], 40)}
	}
}

// scopePhrases widen a learning from the thread's file to its directory.
var scopePhrases = []string{"for this directory", "in this directory", "for this folder", "in this folder"}

// scope finds a directory phrase in d and returns d without it.
func scope(d string) (string, bool) {
	lower := strings.ToLower(d)
	for _, p := range scopePhrases {
		if i := strings.Index(lower, p); i >= 0 {
			out := strings.Join(strings.Fields(d[:i]+" "+d[i+len(p):]), " ")
			out = strings.NewReplacer(" .", ".", " ,", ",", " :", ":").Replace(out)
			return strings.Trim(out, ":,;- "), true
		}
	}
	return strings.TrimSpace(d), false
}

func openFence(s string) string {
	for _, ch := range []string{"`", "~"} {
		n := 0
		for n < len(s) && s[n:n+1] == ch {
			n++
		}
		if n >= 3 {
			if ch == "`" && strings.Contains(s[n:], "`") {
				return "" // a backtick info string cannot hold backticks: inline code
			}
			return strings.Repeat(ch, n)
		}
	}
	return ""
}

func closesFence(s, fence string) bool {
	n := 0
	for n < len(s) && s[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(s[n:]) == ""
}
