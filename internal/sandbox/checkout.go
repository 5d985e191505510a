package sandbox

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
)

// Checkout is what the workflow run wr checks out, following the workflow
// file it was dispatched with (read at the run's commit) as GitHub's runner
// would: its actions/checkout step's `ref:` with the inputs filled in,
// fetched as git fetches it from GitHub (ghsim.FetchRef: a commit SHA by
// itself, refs/pull/<n>/head as the PR's head now), then the step that
// compares HEAD with the dispatched head_sha, if the workflow has one. The
// template fetches the dispatched commit, so a shadow run gets the older
// commit it replays; an older template fetching refs/pull/<n>/head fails
// here, as it fails on GitHub, once the PR has moved on.
func Checkout(sim *ghsim.Sim, wr ghsim.WorkflowRun) (string, map[string]string, error) {
	src, ok := sim.FileAt(wr.Repo, wr.SHA, ".github/workflows/"+wr.Workflow)
	if !ok {
		return "", nil, fmt.Errorf("no .github/workflows/%s at %s", wr.Workflow, wr.SHA)
	}
	var doc struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return "", nil, fmt.Errorf("workflow: %w", err)
	}
	var sha string
	var files map[string]string
	for _, job := range doc.Jobs {
		for _, st := range job.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@") && files == nil:
				// No ref: the commit of the event, the dispatched branch's head.
				ref := wr.SHA
				if r := ghsim.FillInputs(st.With["ref"], wr.Inputs); r != "" {
					ref = r
				}
				var err error
				if sha, files, err = sim.FetchRef(wr.Repo, ref); err != nil {
					return "", nil, fmt.Errorf("actions/checkout %s: %w", ref, err)
				}
			case files != nil && strings.Contains(st.Run, "git rev-parse HEAD") && st.Env["HEAD_SHA"] != "":
				if want := ghsim.FillInputs(st.Env["HEAD_SHA"], wr.Inputs); sha != want {
					return "", nil, fmt.Errorf("the checkout is at %s, not at the dispatched commit %s", sha, want)
				}
			}
		}
	}
	if files == nil {
		return "", nil, fmt.Errorf(".github/workflows/%s has no actions/checkout step", wr.Workflow)
	}
	return sha, files, nil
}

// RunnerRuns are the Chakshu run ids the workflow run wr hands chakshu-action
// (its step's CHAKSHU_RUN_ID and CHAKSHU_RUN_IDS, inputs filled in), read
// from the workflow file as GitHub's runner would: an older template without
// CHAKSHU_RUN_IDS hands over one run, whatever the dispatch sent.
func RunnerRuns(sim *ghsim.Sim, wr ghsim.WorkflowRun) (runID, runIDs string) {
	src, _ := sim.FileAt(wr.Repo, wr.SHA, ".github/workflows/"+wr.Workflow)
	var doc struct {
		Jobs map[string]struct {
			Steps []struct {
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if yaml.Unmarshal([]byte(src), &doc) == nil {
		for _, job := range doc.Jobs {
			for _, st := range job.Steps {
				if e, ok := st.Env["CHAKSHU_RUN_ID"]; ok {
					return ghsim.FillInputs(e, wr.Inputs), ghsim.FillInputs(st.Env["CHAKSHU_RUN_IDS"], wr.Inputs)
				}
			}
		}
	}
	return fmt.Sprint(wr.Inputs["run_id"]), ""
}
