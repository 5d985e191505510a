package reviewerconfig

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// Skill is one reviewer skill as stored on the reviewer row and sent to the
// runner: SKILL.md's front matter name and description, its whole text, and
// the files beside it by path relative to the skill's folder.
type Skill = runnerproto.Skill

// maxSkillDescription caps a skill's description (Claude's own limit).
const maxSkillDescription = 1024

// parseSkillFrontMatter reads the YAML front matter of a SKILL.md: a first
// line "---", YAML, and a closing "---" line. name and description are
// required; Claude's other skill keys are allowed and ignored.
func parseSkillFrontMatter(file string, b []byte) (name, description string, err error) {
	c := &checker{file: file}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		c.addf(1, "want front matter: a first line \"---\", then name: and description:, then \"---\"")
		return "", "", c.err()
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		c.addf(1, "front matter is not closed by a \"---\" line")
		return "", "", c.err()
	}
	// A leading empty line keeps YAML's line numbers equal to the file's.
	front := "\n" + strings.Join(lines[1:end], "\n")
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		line, msg := yamlErrorLine(err)
		c.addf(line, "front matter: %s", msg)
		return "", "", c.err()
	}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = deref(doc.Content[0])
	}
	if root == nil || root.Kind != yaml.MappingNode {
		c.addf(2, "front matter: want name: and description:")
		return "", "", c.err()
	}
	known := []string{"name", "description", "license", "allowed-tools", "metadata", "version", "model"}
	for _, f := range c.fields(root, "", known) {
		switch f.key {
		case "name":
			if s, ok := c.str(f, "name", 64); ok {
				name = s
				if !ValidName(s) {
					c.addf(f.value.Line, "name: %q: want [a-z0-9-]{1,64}", s)
				}
			}
		case "description":
			if s, ok := c.str(f, "description", maxSkillDescription); ok {
				description = strings.TrimSpace(s)
			}
		}
	}
	if len(c.problems) == 0 {
		if name == "" {
			c.addf(end+1, "front matter: name is required")
		}
		if description == "" {
			c.addf(end+1, "front matter: description is required")
		}
	}
	return name, description, c.err()
}

// Skills are the skills of r (the reviewer in force, or a shadow run's
// through ForRun) sorted by name, nameless ones left out: the one reading of
// the stored skills for the job and the API.
func Skills(r *ent.Reviewer) []Skill {
	out := make([]Skill, 0, len(r.Skills))
	for _, s := range r.Skills {
		if s.Name != "" {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}
