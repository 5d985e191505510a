package worker_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/worker"
)

// The dispatcher sends only inputs the workflow template declares: GitHub
// refuses an undeclared one (422 "Unexpected inputs provided") and a missing
// required one. A run alone sends exactly the required ones, so an older
// workflow file (without run_ids) starts it; runs sharing an Actions run send
// every input the template declares.
func TestDispatchInputsAreTheTemplates(t *testing.T) {
	var wf struct {
		On struct {
			Dispatch struct {
				Inputs map[string]struct {
					Required bool `yaml:"required"`
				} `yaml:"inputs"`
			} `yaml:"workflow_dispatch"`
		} `yaml:"on"`
	}
	if err := yaml.Unmarshal([]byte(action.WorkflowTemplate), &wf); err != nil {
		t.Fatal(err)
	}
	declared := wf.On.Dispatch.Inputs
	var required []string
	for name, in := range declared {
		if in.Required {
			required = append(required, name)
		}
	}
	slices.Sort(required)
	alone := worker.DispatchInputs(&ent.Run{ID: 7, PrNumber: 3, HeadSha: "abc"})
	if got := slices.Sorted(maps.Keys(alone)); fmt.Sprint(got) != fmt.Sprint(required) {
		t.Fatalf("a run alone sends %v, the template requires %v", got, required)
	}
	shared := worker.DispatchInputs(&ent.Run{ID: 7, PrNumber: 3, HeadSha: "abc"}, &ent.Run{ID: 9, PrNumber: 3, HeadSha: "abc"})
	got, want := slices.Sorted(maps.Keys(shared)), slices.Sorted(maps.Keys(declared))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("a shared dispatch sends %v, the template declares %v", got, want)
	}
	if shared["run_id"] != "7" || shared["run_ids"] != "7,9" {
		t.Fatalf("shared inputs %v, want run_id 7 and run_ids 7,9", shared)
	}
}
