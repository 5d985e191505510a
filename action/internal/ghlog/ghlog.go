// Package ghlog escapes text printed to the GitHub Actions log so that it can
// never be read as a workflow command.
//
// The runner (actions/runner, src/Runner.Worker/ActionCommandManager.cs)
// reads a step's stdout line by line (a line ends at \n, \r or \r\n) and
// treats a line as a command when, after leading whitespace, it starts with
// "::name" (ActionCommand.TryParseV2), or, failing that, when it contains the
// legacy "##[name" ANYWHERE in the line (ActionCommand.TryParse). GitHub's
// documented escaping for command data is %25 for %, %0D for \r and %0A for
// \n ("Workflow commands for GitHub Actions"; community discussion #26736).
// Escape applies those three and breaks the legacy prefix, so a value from
// the checkout or the model stays on the line it was printed on and holds
// no command, whatever it contains.
package ghlog

import "strings"

var escaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", "##[", "##%5B")

// Escape returns s made safe to print inside one line of the Actions log.
func Escape(s string) string { return escaper.Replace(s) }
