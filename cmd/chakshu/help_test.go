package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// Every command's --help exits 0 with usage on stdout, and the process
// commands list every setting from the one list in internal/config.
func TestEveryCommandHelp(t *testing.T) {
	for _, c := range commands() {
		args := []string{c.name, "--help"}
		if c.name == "workflow" {
			args = []string{"workflow", "print", "--help"}
		}
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr syncbuf.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v: %v\nstderr: %s", args, err, stderr.String())
			}
			if out := stdout.String(); !strings.Contains(out, "Usage:") || !strings.Contains(out, "chakshu "+c.name) {
				t.Fatalf("%v printed no usage:\n%s", args, stdout.String())
			}
			if c.ownArgs || c.name == "version" {
				return
			}
			for _, n := range config.SettingNames() {
				if !strings.Contains(stdout.String(), n) {
					t.Errorf("%s --help omits %s", c.name, n)
				}
			}
		})
	}
}

func TestWorkflowWithoutPrintIsAUsageError(t *testing.T) {
	var stdout, stderr syncbuf.Buffer
	if err := run(context.Background(), []string{"workflow"}, &stdout, &stderr); err != errUsage {
		t.Fatalf("workflow with no sub-command: %v, want the usage error (exit 2)", err)
	}
}
