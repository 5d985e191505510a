package action

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

type workflowFile struct {
	On          map[string]yaml.Node `yaml:"on"`
	Permissions map[string]string    `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			Name string            `yaml:"name"`
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func TestWorkflowTemplateSecurity(t *testing.T) {
	var wf workflowFile
	if err := yaml.Unmarshal([]byte(WorkflowTemplate), &wf); err != nil {
		t.Fatalf("parse workflow: %v", err)
	}
	var triggers []string
	for k := range wf.On {
		triggers = append(triggers, k)
	}
	if diff := cmp.Diff([]string{"workflow_dispatch"}, triggers); diff != "" {
		t.Fatalf("triggers (-want +got):\n%s", diff)
	}
	var inputs struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	node := wf.On["workflow_dispatch"]
	if err := node.Decode(&inputs); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"run_id", "pr_number", "head_sha"} {
		if _, ok := inputs.Inputs[in]; !ok {
			t.Errorf("workflow_dispatch input %s missing", in)
		}
	}
	if diff := cmp.Diff(map[string]string{"id-token": "write", "contents": "read"}, wf.Permissions); diff != "" {
		t.Fatalf("permissions (-want +got):\n%s", diff)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("want one job, got %d", len(wf.Jobs))
	}
	for name, job := range wf.Jobs {
		if job.Permissions != nil {
			t.Errorf("job %s widens permissions: %v", name, job.Permissions)
		}
		var checkout, download, action, verify, explain bool
		checkoutID := ""
		for _, s := range job.Steps {
			// Inputs must reach shell scripts through env, never by interpolation.
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %q interpolates an expression into a script", s.Name)
			}
			switch {
			case strings.HasPrefix(s.Uses, "actions/checkout@"):
				checkout, checkoutID = true, s.ID
				if s.With["persist-credentials"] != "false" {
					t.Errorf("checkout persists credentials: %v", s.With)
				}
				// The dispatched commit itself, fetched by its SHA: a
				// backtest replays a commit that may no longer be the
				// PR's head (refs/pull/<n>/head would not be it).
				if s.With["ref"] != "${{ inputs.head_sha }}" {
					t.Errorf("checkout ref = %q, want the dispatched commit", s.With["ref"])
				}
				if _, ok := s.With["token"]; ok {
					t.Errorf("checkout is given a token")
				}
			case strings.Contains(s.Run, "/api/runner/v1/runner/") && strings.Contains(s.Run, "sha256sum --check"):
				download = true
				if s.Env["CHAKSHU_URL"] != "${{ vars.CHAKSHU_URL }}" {
					t.Errorf("download CHAKSHU_URL = %q", s.Env["CHAKSHU_URL"])
				}
			case strings.Contains(s.Run, `"$RUNNER_TEMP/chakshu-action"`):
				action = download // the runner starts only after the download step checked it
				if s.Env["CHAKSHU_URL"] != "${{ vars.CHAKSHU_URL }}" || s.Env["CHAKSHU_RUN_ID"] != "${{ inputs.run_id }}" {
					t.Errorf("runner step env = %v", s.Env)
				}
			case strings.Contains(s.Run, "git rev-parse HEAD") && strings.Contains(s.Run, "HEAD_SHA"):
				verify = checkout
			case checkoutID != "" && s.If == "failure() && steps."+checkoutID+".outcome == 'failure'":
				// A commit that can no longer be fetched (force-pushed
				// away and collected) is said in words, not only in
				// git's "not our ref".
				explain = strings.Contains(s.Run, "::error::") && strings.Contains(s.Run, "could not be fetched")
			}
			// No action but actions/checkout, pinned by commit (v6.0.3, a
			// Node 24 action: Node 20 left the hosted runners on 2026-09-16):
			// no setup-go, no cache, no copy of Chakshu's source.
			if s.Uses != "" && !regexp.MustCompile(`^actions/checkout@[0-9a-f]{40}$`).MatchString(s.Uses) {
				t.Errorf("step %q uses %s: only actions/checkout pinned to a commit is allowed", s.Name, s.Uses)
			}
			for k, v := range s.With {
				if strings.Contains(v, "secrets.") {
					t.Errorf("step %q passes a secret in %s", s.Name, k)
				}
			}
		}
		if !checkout || !explain || !download || !action || !verify {
			t.Errorf("job %s: checkout=%v explain=%v verify=%v download=%v runner=%v; want all", name, checkout, explain, verify, download, action)
		}
	}
	if strings.Contains(WorkflowTemplate, "secrets.") || strings.Contains(WorkflowTemplate, "GITHUB_TOKEN") {
		t.Error("the workflow must not reference secrets or GITHUB_TOKEN")
	}
	for _, banned := range []string{"setup-go", "actions/cache", "cache:", "go build"} {
		if strings.Contains(WorkflowTemplate, banned) {
			t.Errorf("the workflow mentions %q: it downloads the runner instead", banned)
		}
	}
}

func TestActionYAML(t *testing.T) {
	var a struct {
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal([]byte(ActionYAML), &a); err != nil {
		t.Fatalf("parse action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("using = %q, want composite", a.Runs.Using)
	}
	var builds bool
	for _, s := range a.Runs.Steps {
		// Built from source without a shared cache (a cache any workflow on
		// the default branch can write is a way to poison the runner).
		if s.Uses != "" || strings.Contains(s.Run, "cache: true") {
			t.Errorf("the from-source action uses %q: it must build with its own fresh cache", s.Uses)
		}
		if strings.Contains(s.Run, "go build") && strings.Contains(s.Run, "./cmd/chakshu-action") {
			builds = strings.Contains(s.Run, `GOCACHE="$RUNNER_TEMP/`) && strings.Contains(s.Run, "internal/version.Version=$VERSION")
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step interpolates an expression into a script: %q", s.Run)
		}
	}
	if !builds {
		t.Fatal("action.yml must build chakshu-action at the given version with a fresh GOCACHE")
	}
}
