// Package action holds chakshu-action's composite action definition and the
// workflow template users copy to .github/workflows/chakshu.yml. The runner
// code lives in the packages below it.
package action

import _ "embed"

// WorkflowTemplate is the workflow users copy to .github/workflows/chakshu.yml
// (`chakshu workflow print` prints it).
//
//go:embed workflow/chakshu.yml
var WorkflowTemplate string

// WorkflowPath is where the workflow must live in a repository.
const WorkflowPath = ".github/workflows/chakshu.yml"

// ActionYAML is the composite action definition (action.yml).
//
//go:embed action.yml
var ActionYAML string
