package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-github/v88/github"
	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
)

// WorkflowState is a repository's enrolment as doctor judges it.
type WorkflowState string

const (
	// WorkflowCurrent: the default branch has the workflow and it means
	// what this version's template means.
	WorkflowCurrent WorkflowState = "current"
	// WorkflowOutdated: it has the workflow, dispatchable, but it differs
	// from the template (permissions, checkout, the runner's start).
	WorkflowOutdated WorkflowState = "outdated"
	// WorkflowMissing: no workflow on the default branch (not enrolled).
	WorkflowMissing WorkflowState = "missing"
	// WorkflowNotDispatchable: a file is there but GitHub would refuse to
	// dispatch it: not a valid workflow, or no workflow_dispatch trigger
	// ("Workflow does not have 'workflow_dispatch' trigger", API.md).
	WorkflowNotDispatchable WorkflowState = "not_dispatchable"
)

// RepoWorkflow is one repository's workflow judged against the template.
type RepoWorkflow struct {
	State WorkflowState
	// Detail says, in words, why (empty when current).
	Detail string
	// Branch is the default branch the workflow was read from.
	Branch string
	// Exists reports whether the file exists (so an edit, not a new file, fixes it).
	Exists bool
}

// CheckWorkflow reads owner/name's WorkflowPath on branch and judges it by
// meaning against template (see workflowDiffs). An error means the file could
// not be read (anything but 404).
func CheckWorkflow(ctx context.Context, c *github.Client, owner, name, branch, template, serverVersion string) (RepoWorkflow, error) {
	out := RepoWorkflow{Branch: branch}
	fc, _, resp, err := c.Repositories.GetContents(ctx, owner, name, WorkflowPath, &github.RepositoryContentGetOptions{Ref: branch})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			out.State, out.Detail = WorkflowMissing, "no "+WorkflowPath+" on "+branch
			return out, nil
		}
		return out, fmt.Errorf("read %s: %w", WorkflowPath, err)
	}
	out.Exists = true
	text, err := fc.GetContent()
	if err != nil {
		return out, fmt.Errorf("decode %s: %w", WorkflowPath, err)
	}
	diffs, err := workflowDiffs(text, template, serverVersion)
	switch {
	case err != nil:
		out.State, out.Detail = WorkflowNotDispatchable, WorkflowPath+" on "+branch+" is not a valid workflow: "+err.Error()
	case len(diffs) > 0:
		out.State, out.Detail = WorkflowOutdated, WorkflowPath+" on "+branch+" differs from this version's template: "+strings.Join(diffs, "; ")
		if h, _ := parseWorkflow(text); !slices.Contains(h.triggers, "workflow_dispatch") {
			out.State = WorkflowNotDispatchable
		}
	default:
		out.State, out.Detail = WorkflowCurrent, "current on "+branch
	}
	return out, nil
}

// workflow checks one repository's .github/workflows/chakshu.yml against this
// version's template by meaning (triggers and inputs, permissions, the
// checkout, the runner's download and start), not by text: comments, key
// order and formatting may differ. A repository without the file is not
// enrolled, which is not a failure.
func (r *run) workflow(ctx context.Context, client *gh.Installation, repo *github.Repository) {
	full, branch := repo.GetFullName(), repo.GetDefaultBranch()
	name := "workflow " + full
	fix := fmt.Sprintf("run `chakshu enrol %s` (or `chakshu workflow print > %s` and commit it to %s's default branch, %s)", full, WorkflowPath, full, branch)
	w, err := CheckWorkflow(ctx, client.REST, repo.GetOwner().GetLogin(), repo.GetName(), branch, r.cfg.Workflow, r.cfg.Version)
	switch {
	case err != nil && !w.Exists:
		r.add(name, false, "read "+WorkflowPath+": "+ghError(errors.Unwrap(err)), "check the App's contents permission on "+full)
	case err != nil:
		r.add(name, false, redact.Error(err), fix)
	case w.State == WorkflowMissing:
		r.info(name, "not enrolled: "+w.Detail+" (Chakshu cannot review its pull requests until it has one)")
	case w.State == WorkflowCurrent:
		r.add(name, true, w.Detail, "")
	default:
		r.add(name, false, w.Detail, fix)
	}
}

// workflowShape is what a Chakshu workflow means.
type workflowShape struct {
	triggers    []string
	inputs      map[string]string // name → "required type"
	permissions map[string]string // workflow level, and each job's as job.<name>.<permission>
	// checkout is the actions/checkout step: its reference (any pin) and the
	// inputs that matter (ref, persist-credentials, path).
	checkout     string
	checkoutWith map[string]string
	// download is the step fetching chakshu-action from Chakshu (whitespace
	// collapsed); runnerEnv the environment of the step running it.
	download  string
	runnerEnv map[string]string
	// fromSource is the action that builds the runner from Chakshu's source
	// (action/action.yml, documented as the alternative) and its inputs.
	fromSource     string
	fromSourceWith map[string]string
}

type wfStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
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
				s.checkoutWith = map[string]string{}
				for _, k := range []string{"ref", "persist-credentials", "path"} {
					s.checkoutWith[k] = st.With[k]
				}
			case st.Uses != "" && strings.Contains(st.Uses, "chakshu"):
				s.fromSource, s.fromSourceWith = st.Uses, st.With
			case strings.Contains(st.Run, "/api/runner/v1/runner/"):
				s.download = collapse(st.Run)
			case strings.Contains(st.Run, "chakshu-action") && st.Env["CHAKSHU_RUN_ID"] != "":
				s.runnerEnv = st.Env
			}
		}
	}
	return s, nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// node20Checkout matches actions/checkout pinned to a major release that
// runs on Node 20 or older: Node 20 left the Actions runners on 2026-09-16
// (GitHub changelog 2025-09-19 "Deprecation of Node 20 on GitHub Actions
// runners"; checkout v6 runs on Node 24). A commit pin is not judged: doctor
// cannot tell its release.
var node20Checkout = regexp.MustCompile(`^actions/checkout@v[1-5](\.|$)`)

// workflowDiffs names, in words, how have's meaning differs from want's:
// the trigger and its inputs, the permissions, what the checkout fetches
// and whether it keeps credentials, and how the runner is started (the
// served binary, verified, with the run id; or the documented build from
// source, pinned to the server's version). Pins (a commit, a release) of
// the actions used, comments and formatting do not matter.
func workflowDiffs(have, want, serverVersion string) ([]string, error) {
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
	switch {
	case h.checkout == "":
		out = append(out, "has no actions/checkout step (want "+w.checkout+")")
	case node20Checkout.MatchString(h.checkout):
		out = append(out, fmt.Sprintf("checkout is %s, a Node 20 action the runners no longer run: want %s", h.checkout, w.checkout))
	default:
		if d := mapDiff(h.checkoutWith, w.checkoutWith); d != "" {
			if strings.HasPrefix(h.checkoutWith["ref"], "refs/pull/") && !strings.HasPrefix(w.checkoutWith["ref"], "refs/pull/") {
				// The template before backtests: it checked out the PR's
				// head now, so a backtest's replay of an older commit fails.
				d += " (the PR's current head; backtests replay older commits, which only the dispatched head_sha fetches)"
			}
			out = append(out, "checkout with: "+d)
		}
	}
	if h.fromSource != "" {
		// action/action.yml: build the version the Chakshu server runs, so
		// the runner speaks a protocol the server serves.
		fw := h.fromSourceWith
		switch {
		case fw["run-id"] != "${{ inputs.run_id }}":
			out = append(out, fmt.Sprintf("the runner built from source (%s) gets run-id %q, want ${{ inputs.run_id }}", h.fromSource, fw["run-id"]))
		case h.inputs["run_ids"] != "" && fw["run-ids"] != "${{ inputs.run_ids }}":
			// Reviewers sharing the Actions run would wait for a runner
			// that never asks for their jobs.
			out = append(out, fmt.Sprintf("the runner built from source (%s) gets run-ids %q, want ${{ inputs.run_ids }} (the workflow declares run_ids)", h.fromSource, fw["run-ids"]))
		case fw["chakshu-url"] == "":
			out = append(out, fmt.Sprintf("the runner built from source (%s) has no chakshu-url", h.fromSource))
		case fw["version"] == "":
			out = append(out, fmt.Sprintf("the runner built from source (%s) names no version: build this server's (%s), so it speaks a runner protocol the server serves", h.fromSource, serverVersion))
		case serverVersion != "" && fw["version"] != serverVersion:
			out = append(out, fmt.Sprintf("the runner built from source (%s) is version %s, but this server is %s: a runner of another build gets jobs only while it speaks a runner protocol this server serves (%d–%d); build %s", h.fromSource, fw["version"], serverVersion, runnerproto.MinProtocol, runnerproto.Protocol, serverVersion))
		}
		return out, nil
	}
	switch {
	case h.download == "":
		out = append(out, "has no step downloading chakshu-action from Chakshu")
	case !strings.Contains(h.download, "sha256sum"):
		out = append(out, "the step downloading chakshu-action does not check it against the SHA-256 Chakshu publishes")
	}
	if h.runnerEnv == nil {
		out = append(out, "has no step running chakshu-action with CHAKSHU_RUN_ID")
	} else {
		var bad []string
		keys := []string{"CHAKSHU_URL", "CHAKSHU_RUN_ID", "CHAKSHU_CHECKOUT"}
		if h.inputs["run_ids"] != "" {
			// Declaring run_ids lets reviewers share the Actions run: the
			// runner must be handed them.
			keys = append(keys, "CHAKSHU_RUN_IDS")
		}
		for _, k := range keys {
			if h.runnerEnv[k] != w.runnerEnv[k] {
				bad = append(bad, fmt.Sprintf("%s is %q, want %q", k, h.runnerEnv[k], w.runnerEnv[k]))
			}
		}
		if len(bad) > 0 {
			out = append(out, "the step running chakshu-action: "+strings.Join(bad, ", "))
		}
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
