package reviewerconfig

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// Problem is one thing wrong with a configuration file, at a line.
type Problem struct {
	File string
	Line int // 0 when the problem is about the whole file
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

// ParseError lists what is wrong with a configuration file. Its message names
// the file and line of each problem, one a line, e.g.
// "reviewers/security/reviewer.yaml:7: min_severity: want blocker|major|minor|nit".
type ParseError struct {
	Problems []Problem
}

func (e *ParseError) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = p.String()
	}
	return strings.Join(s, "\n")
}

// maxProblems caps how many problems one file reports.
const maxProblems = 20

// checker walks a YAML document collecting problems with their lines.
type checker struct {
	file     string
	problems []Problem
}

func (c *checker) addf(line int, format string, args ...any) {
	if len(c.problems) >= maxProblems {
		return
	}
	c.problems = append(c.problems, Problem{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
	return &ParseError{Problems: c.problems}
}

// root parses b and returns its top-level mapping, or nil for an empty document.
func (c *checker) root(b []byte, maxBytes int) *yaml.Node {
	if len(b) > maxBytes {
		c.addf(0, "file is %d bytes, over the %d byte limit", len(b), maxBytes)
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		c.addf(line, "%s", msg)
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // empty file: defaults
	}
	n := deref(doc.Content[0])
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		c.addf(n.Line, "want a mapping of keys to values at the top level")
		return nil
	}
	return n
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlErrorLine pulls the line out of a yaml.v3 syntax error.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, "invalid YAML: " + m[2]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if strings.HasPrefix(msg, "line ") {
		if i := strings.Index(msg, ":"); i > 0 {
			if n, err := strconv.Atoi(strings.TrimPrefix(msg[:i], "line ")); err == nil {
				return n, "invalid YAML:" + msg[i+1:]
			}
		}
	}
	return 0, "invalid YAML: " + msg
}

// maxAliasDepth bounds alias chains (anchors are resolved, never expanded recursively).
const maxAliasDepth = 10

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// field is one key of a mapping with its value.
type field struct {
	key   string
	line  int
	value *yaml.Node
}

// fields returns the keys of mapping n in order, reporting unknown and
// repeated keys. prefix names the mapping in messages ("auto.").
func (c *checker) fields(n *yaml.Node, prefix string, known []string) []field {
	var out []field
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k == nil || k.Kind != yaml.ScalarNode {
			c.addf(n.Content[i].Line, "%swant a plain key", prefix)
			continue
		}
		if k.Value == "<<" {
			c.addf(k.Line, "%smerge keys (<<) are not supported", prefix)
			continue
		}
		if !contains(known, k.Value) {
			c.addf(k.Line, "%s%s: unknown key (known: %s)", prefix, k.Value, strings.Join(known, ", "))
			continue
		}
		if seen[k.Value] {
			c.addf(k.Line, "%s%s: key given twice", prefix, k.Value)
			continue
		}
		seen[k.Value] = true
		if isNull(v) {
			continue // "key:" with no value keeps the default
		}
		out = append(out, field{key: k.Value, line: k.Line, value: v})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str returns a scalar's text; name is the key path for messages.
func (c *checker) str(f field, name string, maxLen int) (string, bool) {
	if f.value.Kind != yaml.ScalarNode {
		c.addf(f.value.Line, "%s: want a string", name)
		return "", false
	}
	if len(f.value.Value) > maxLen {
		c.addf(f.value.Line, "%s: %d characters, over the limit of %d", name, len(f.value.Value), maxLen)
		return "", false
	}
	return f.value.Value, true
}

func (c *checker) boolean(f field, name string) (bool, bool) {
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!bool" {
		c.addf(f.value.Line, "%s: want true or false", name)
		return false, false
	}
	var b bool
	if err := f.value.Decode(&b); err != nil {
		c.addf(f.value.Line, "%s: want true or false", name)
		return false, false
	}
	return b, true
}

// integer reads an int in [lo, hi].
func (c *checker) integer(f field, name string, lo, hi int) (int, bool) {
	var v int64
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!int" || f.value.Decode(&v) != nil {
		c.addf(f.value.Line, "%s: want a whole number", name)
		return 0, false
	}
	if v < int64(lo) || v > int64(hi) {
		c.addf(f.value.Line, "%s: want a number from %d to %d, got %d", name, lo, hi, v)
		return 0, false
	}
	return int(v), true
}

// number reads a float in (lo, hi].
func (c *checker) number(f field, name string, lo, hi float64) (float64, bool) {
	var v float64
	if f.value.Kind != yaml.ScalarNode || (f.value.Tag != "!!int" && f.value.Tag != "!!float") || f.value.Decode(&v) != nil {
		c.addf(f.value.Line, "%s: want a number", name)
		return 0, false
	}
	if math.IsNaN(v) || v <= lo || v > hi {
		c.addf(f.value.Line, "%s: want a number above %g and at most %g, got %v", name, lo, hi, f.value.Value)
		return 0, false
	}
	return v, true
}

// item is one entry of a list of strings, with its line.
type item struct {
	value string
	line  int
}

// strs reads a list of strings, at most maxItems long.
func (c *checker) strs(f field, name string, maxItems, maxLen int) ([]item, bool) {
	if f.value.Kind != yaml.SequenceNode {
		c.addf(f.value.Line, "%s: want a list", name)
		return nil, false
	}
	if len(f.value.Content) > maxItems {
		c.addf(f.value.Line, "%s: %d entries, over the limit of %d", name, len(f.value.Content), maxItems)
		return nil, false
	}
	ok := true
	out := make([]item, 0, len(f.value.Content))
	seen := map[string]bool{}
	for _, e := range f.value.Content {
		e = deref(e)
		if e == nil || e.Kind != yaml.ScalarNode || isNull(e) {
			c.addf(f.value.Line, "%s: want a list of strings", name)
			ok = false
			continue
		}
		if len(e.Value) > maxLen {
			c.addf(e.Line, "%s: entry of %d characters, over the limit of %d", name, len(e.Value), maxLen)
			ok = false
			continue
		}
		if seen[e.Value] {
			c.addf(e.Line, "%s: %q listed twice", name, e.Value)
			ok = false
			continue
		}
		seen[e.Value] = true
		out = append(out, item{value: e.Value, line: e.Line})
	}
	return out, ok
}

// Glob limits: long or wildcard-heavy patterns are refused so matching stays cheap.
const (
	maxGlobLen       = 256
	maxGlobWildcards = 8
)

// ValidateGlob says what is wrong with a file or repository glob, or nil.
// Globs use doublestar syntax (`**`, `*`, `?`, `[…]`, `{a,b}`).
func ValidateGlob(g string) error {
	switch {
	case g == "":
		return errors.New("empty glob")
	case len(g) > maxGlobLen:
		return fmt.Errorf("glob of %d characters, over the limit of %d", len(g), maxGlobLen)
	case strings.HasPrefix(g, "/"):
		return errors.New("glob must be relative (no leading /)")
	case strings.ContainsAny(g, "\x00\n\r"):
		return errors.New("glob has a control character")
	case strings.Count(g, "*")+strings.Count(g, "?")+strings.Count(g, "{")+strings.Count(g, "[") > maxGlobWildcards:
		return fmt.Errorf("glob has more than %d wildcards", maxGlobWildcards)
	case !doublestar.ValidatePattern(g):
		return errors.New("invalid glob")
	}
	return nil
}

func (c *checker) globs(f field, name string, maxItems int) []string {
	items, _ := c.strs(f, name, maxItems, maxGlobLen)
	var out []string
	for _, it := range items {
		if err := ValidateGlob(it.value); err != nil {
			c.addf(it.line, "%s: %q: %v", name, it.value, err)
			continue
		}
		out = append(out, it.value)
	}
	return out
}

// nameRE is the shape of reviewer names.
var nameRE = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

// ValidName reports whether s is a valid reviewer name: [a-z0-9-]{1,64}.
func ValidName(s string) bool { return nameRE.MatchString(s) }

func (c *checker) names(f field, name string) []string {
	items, _ := c.strs(f, name, maxReviewers, 64)
	var out []string
	for _, it := range items {
		if !ValidName(it.value) {
			c.addf(it.line, "%s: %q is not a reviewer name (want [a-z0-9-]{1,64})", name, it.value)
			continue
		}
		out = append(out, it.value)
	}
	return out
}

// maxReviewers caps reviewers per installation and names in one list.
const maxReviewers = 100
