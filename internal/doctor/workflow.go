package doctor

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-github/v88/github"
	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/redact"
)

// workflow checks one repository's .github/workflows/chakshu.yml against this
// version's template by meaning (triggers and inputs, permissions, the
// checkout, the runner's download and start), not by text: comments, key
// order and formatting may differ. A repository without the file is not
// enrolled, which is not a failure.
func (r *run) workflow(ctx context.Context, client *gh.Installation, repo *github.Repository) {
	full, branch := repo.GetFullName(), repo.GetDefaultBranch()
	name := "workflow " + full
	fix := fmt.Sprintf("run `chakshu workflow print > %s` and commit it to %s's default branch (%s)", WorkflowPath, full, branch)
	fc, _, resp, err := client.REST.Repositories.GetContents(ctx, repo.GetOwner().GetLogin(), repo.GetName(), WorkflowPath,
		&github.RepositoryContentGetOptions{Ref: branch})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			r.add(name, true, "not enrolled: no "+WorkflowPath+" on "+branch+" (Chakshu cannot review its pull requests until it has one)", "")
			return
		}
		r.add(name, false, "read "+WorkflowPath+": "+ghError(err), "check the App's contents permission on "+full)
		return
	}
	text, err := fc.GetContent()
	if err != nil {
		r.add(name, false, "decode "+WorkflowPath+": "+redact.Error(err), fix)
		return
	}
	diffs, err := workflowDiffs(text, r.cfg.Workflow)
	if err != nil {
		r.add(name, false, WorkflowPath+" on "+branch+" is not a valid workflow: "+err.Error(), fix)
		return
	}
	if len(diffs) > 0 {
		r.add(name, false, WorkflowPath+" on "+branch+" differs from this version's template: "+strings.Join(diffs, "; "), fix)
		return
	}
	r.add(name, true, "current on "+branch, "")
}

// workflowShape is what a Chakshu workflow means.
type workflowShape struct {
	triggers    []string
	inputs      map[string]string // name → "required type"
	permissions map[string]string // workflow level, and each job's as job.<name>.<permission>
	checkout    string            // the actions/checkout reference
	download    string            // the download step's script, whitespace collapsed
	runner      string            // the runner step's script and environment
	fromSource  []string          // uses: of an action that builds the runner
}

type wfStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
}

func parseWorkflow(src string) (workflowShape, error) {
	var doc struct {
		On          yaml.Node         `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []wfStep          `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return workflowShape{}, fmt.Errorf("YAML: %s", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	s := workflowShape{inputs: map[string]string{}, permissions: map[string]string{}}
	switch doc.On.Kind {
	case yaml.ScalarNode:
		s.triggers = []string{doc.On.Value}
	case yaml.SequenceNode:
		for _, n := range doc.On.Content {
			s.triggers = append(s.triggers, n.Value)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(doc.On.Content); i += 2 {
			s.triggers = append(s.triggers, doc.On.Content[i].Value)
			if doc.On.Content[i].Value != "workflow_dispatch" {
				continue
			}
			var wd struct {
				Inputs map[string]struct {
					Required bool   `yaml:"required"`
					Type     string `yaml:"type"`
				} `yaml:"inputs"`
			}
			if err := doc.On.Content[i+1].Decode(&wd); err != nil {
				return workflowShape{}, fmt.Errorf("workflow_dispatch inputs: %v", err)
			}
			for k, v := range wd.Inputs {
				req := "optional"
				if v.Required {
					req = "required"
				}
				s.inputs[k] = req + " " + v.Type
			}
		}
	default:
		return workflowShape{}, fmt.Errorf("no on: triggers")
	}
	sort.Strings(s.triggers)
	for k, v := range doc.Permissions {
		s.permissions[k] = v
	}
	for jn, j := range doc.Jobs {
		for k, v := range j.Permissions {
			s.permissions["job."+jn+"."+k] = v
		}
		for _, st := range j.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@"):
				s.checkout = st.Uses
			case st.Uses != "" && strings.Contains(st.Uses, "chakshu"):
				s.fromSource = append(s.fromSource, st.Uses)
			case strings.Contains(st.Run, "/api/runner/v1/runner/"):
				s.download = collapse(st.Run)
			case strings.Contains(st.Run, "chakshu-action") && st.Env["CHAKSHU_RUN_ID"] != "":
				var env []string
				for k, v := range st.Env {
					env = append(env, k+"="+v)
				}
				sort.Strings(env)
				s.runner = collapse(st.Run) + " env " + strings.Join(env, " ")
			}
		}
	}
	return s, nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// workflowDiffs names, in words, how have's meaning differs from want's.
func workflowDiffs(have, want string) ([]string, error) {
	w, err := parseWorkflow(want)
	if err != nil {
		return nil, fmt.Errorf("the template: %w", err)
	}
	h, err := parseWorkflow(have)
	if err != nil {
		return nil, err
	}
	var out []string
	if !slices.Equal(h.triggers, w.triggers) {
		out = append(out, fmt.Sprintf("triggers are %s, want %s only", strings.Join(h.triggers, ", "), strings.Join(w.triggers, ", ")))
	}
	if d := mapDiff(h.inputs, w.inputs); d != "" {
		out = append(out, "workflow_dispatch inputs: "+d)
	}
	if d := mapDiff(h.permissions, w.permissions); d != "" {
		out = append(out, "permissions: "+d)
	}
	if h.checkout != w.checkout {
		have := h.checkout
		if have == "" {
			have = "none"
		}
		out = append(out, fmt.Sprintf("checkout is %s, want %s", have, w.checkout))
	}
	switch {
	case len(h.fromSource) > 0:
		out = append(out, fmt.Sprintf("builds the runner from Chakshu's source (%s) instead of downloading the one Chakshu serves", strings.Join(h.fromSource, ", ")))
	case h.download == "":
		out = append(out, "has no step downloading chakshu-action from Chakshu")
	case h.download != w.download:
		out = append(out, "the step downloading chakshu-action is not the template's")
	}
	if len(h.fromSource) == 0 && h.runner != w.runner {
		out = append(out, "the step running chakshu-action is not the template's")
	}
	return out, nil
}

func mapDiff(have, want map[string]string) string {
	var d []string
	for k, v := range want {
		hv, ok := have[k]
		switch {
		case !ok:
			d = append(d, k+" missing (want "+v+")")
		case hv != v:
			d = append(d, k+" is "+hv+", want "+v)
		}
	}
	for k, v := range have {
		if _, ok := want[k]; !ok {
			d = append(d, k+": "+v+" is extra")
		}
	}
	sort.Strings(d)
	return strings.Join(d, ", ")
}
