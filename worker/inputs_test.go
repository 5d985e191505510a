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

// The dispatcher sends exactly the inputs the workflow template declares,
// each required there: GitHub refuses an undeclared one (422 "Unexpected
// inputs provided") and a missing required one.
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
	sent := worker.DispatchInputs(&ent.Run{ID: 7, PrNumber: 3, HeadSha: "abc"})
	got, want := slices.Sorted(maps.Keys(sent)), slices.Sorted(maps.Keys(declared))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dispatch sends %v, the template declares %v", got, want)
	}
	for name, in := range declared {
		if !in.Required {
			t.Errorf("template input %s is not required, though every dispatch sends it", name)
		}
	}
}
