package reviewerconfig

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// Skill is one reviewer skill as stored on the reviewer row: SKILL.md's front
// matter name and description, its whole text, and the files beside it by
// path relative to the skill's folder.
type Skill struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Content     string            `json:"content"`
	Files       map[string]string `json:"files,omitempty"`
}

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

// skillsToJSON is the stored form of skills.
func skillsToJSON(skills []Skill) []map[string]any {
	out := make([]map[string]any, 0, len(skills))
	for _, s := range skills {
		b, _ := json.Marshal(s)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		out = append(out, m)
	}
	return out
}

// SkillsFromEnt returns the skills in force for a stored reviewer, in the
// runner's wire form.
func SkillsFromEnt(r *ent.Reviewer) ([]runnerproto.Skill, error) {
	out, err := wireSkills(r.Skills, len(r.Skills))
	if err != nil {
		return nil, fmt.Errorf("reviewer %s: stored skills: %w", r.Name, err)
	}
	return out, nil
}

// SkillsOfSnapshot returns the skills a shadow run's reviewer_snapshot
// carries, in the runner's wire form, as SkillsFromEnt does for the
// reviewer in force.
func SkillsOfSnapshot(snap map[string]any) ([]runnerproto.Skill, error) {
	raw, _ := snap[SnapshotSkills].([]any)
	out, err := wireSkills(raw, len(raw))
	if err != nil {
		return nil, fmt.Errorf("reviewer snapshot: skills: %w", err)
	}
	return out, nil
}

// wireSkills turns skills in their stored form (n of them) into the runner's.
func wireSkills(stored any, n int) ([]runnerproto.Skill, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := json.Marshal(stored)
	if err != nil {
		return nil, err
	}
	var out []runnerproto.Skill
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}
