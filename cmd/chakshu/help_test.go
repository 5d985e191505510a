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
			for _, s := range config.Settings(processSettings(c.name)) {
				if !strings.Contains(stdout.String(), "  "+s.Name+"\n") {
					t.Errorf("%s --help omits %s", c.name, s.Name)
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

// web's --help lists the model gateway's settings and not the worker's
// timings; worker's the other way round; all both.
func TestProcessHelpListsItsOwnSettings(t *testing.T) {
	for _, c := range []struct{ cmd, has, lacks string }{
		{"web", "CHAKSHU_MODEL_API_KEY", "CHAKSHU_RUN_REPORT_TIMEOUT"},
		{"worker", "CHAKSHU_RUN_REPORT_TIMEOUT", "CHAKSHU_MODEL_API_KEY"},
		{"all", "CHAKSHU_RUN_REPORT_TIMEOUT", ""},
		{"all", "CHAKSHU_MODEL_API_KEY", ""},
	} {
		var stdout, stderr syncbuf.Buffer
		if err := run(context.Background(), []string{c.cmd, "--help"}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		out := stdout.String()
		if !strings.Contains(out, "  "+c.has+"\n") || (c.lacks != "" && strings.Contains(out, c.lacks)) {
			t.Errorf("%s --help: want %s listed and %q not:\n%s", c.cmd, c.has, c.lacks, out)
		}
	}
}

// The simulated provider and the scripted model's latency are the sandbox's
// flags, checked before anything starts.
func TestSandboxRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "azure"}, "--provider: want anthropic"},
		{[]string{"--model-latency", "2m"}, "--model-latency: want a duration from 0 to 1m"},
		{[]string{"--model-latency", "-1s"}, "--model-latency: want a duration from 0 to 1m"},
	} {
		var stdout, stderr syncbuf.Buffer
		if err := run(context.Background(), append([]string{"sandbox"}, c.args...), &stdout, &stderr); err != errUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("sandbox %v: %v\n%s", c.args, err, stderr.String())
		}
	}
}
