package config

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Every variable Load reads has a field with tags (which --help prints) and
// every tagged name is read, so the list cannot drift from the code.
func TestSettingsListEveryVariableLoadReads(t *testing.T) {
	read := map[string]bool{"CHAKSHU_CONFIG_FILE": true} // FromEnv reads it before Load
	rec := func(name string) (string, bool) { read[name] = true; return "", false }
	if _, err := Load(rec); err != nil {
		t.Fatal(err)
	}
	// A production configuration reads the names sandbox mode skips.
	app := lookup(map[string]string{"CHAKSHU_APP_ID": "42", "CHAKSHU_APP_SLUG": "s", "CHAKSHU_PRIVATE_KEY": pem,
		"CHAKSHU_WEBHOOK_SECRET": "x", "CHAKSHU_SECRET_KEY": key32, "CHAKSHU_MODEL_API_KEY": "k"})
	if _, err := Load(func(n string) (string, bool) { read[n] = true; return app(n) }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range read {
		got = append(got, n)
	}
	sort.Strings(got)
	listed := SettingNames()
	sort.Strings(listed)
	if d := cmp.Diff(listed, slices.Compact(listed)); d != "" {
		t.Errorf("the tags name a variable twice:\n%s", d)
	}
	if d := cmp.Diff(got, listed); d != "" {
		t.Errorf("variables Load reads (-) against the tags (+):\n%s", d)
	}
}

// README's Configuration table names every variable the tags name (every
// process's), and none that no tag names.
func TestReadmeSettingsTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Configuration\n")
	if !ok {
		t.Fatal("README has no Configuration section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var inTable []string
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| `CHAKSHU_") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		inTable = append(inTable, regexp.MustCompile(`CHAKSHU_[A-Z0-9_]+`).FindAllString(first, -1)...)
	}
	sort.Strings(inTable)
	listed := SettingNames()
	sort.Strings(listed)
	if d := cmp.Diff(listed, inTable); d != "" {
		t.Errorf("the tags (-) against README's Configuration table (+):\n%s", d)
	}
}

func TestInternalAddrAndDrainTimeout(t *testing.T) {
	c, err := Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.InternalAddr != "127.0.0.1:9090" || c.DrainTimeout != DefaultDrainTimeout {
		t.Fatalf("defaults: internal %q drain %s", c.InternalAddr, c.DrainTimeout)
	}
	c, err = Load(lookup(map[string]string{"CHAKSHU_INTERNAL_ADDR": "127.0.0.1:0", "CHAKSHU_DRAIN_TIMEOUT": "2m"}))
	if err != nil || c.InternalAddr != "127.0.0.1:0" || c.DrainTimeout.Minutes() != 2 {
		t.Fatalf("set: %v %+v", err, c)
	}
	for k, v := range map[string]string{"CHAKSHU_INTERNAL_ADDR": "9090", "CHAKSHU_DRAIN_TIMEOUT": "0s"} {
		if _, err := Load(lookup(map[string]string{k: v})); err == nil || !strings.HasPrefix(err.Error(), k+":") {
			t.Errorf("%s=%s: %v, want an error naming it", k, v, err)
		}
	}
}

// A production configuration without an OAuth client cannot sign anyone in:
// web refuses it with one line naming the setting; sandbox mode needs none.
func TestCheckWebNeedsOAuthClient(t *testing.T) {
	app := map[string]string{"CHAKSHU_APP_ID": "42", "CHAKSHU_APP_SLUG": "s", "CHAKSHU_PRIVATE_KEY": pem,
		"CHAKSHU_WEBHOOK_SECRET": "x", "CHAKSHU_SECRET_KEY": key32, "CHAKSHU_MODEL_API_KEY": "k"}
	c, err := Load(lookup(app))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckWeb(); err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_OAUTH_CLIENT_ID:") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("CheckWeb without an OAuth client: %v", err)
	}
	app["CHAKSHU_OAUTH_CLIENT_ID"], app["CHAKSHU_OAUTH_CLIENT_SECRET"] = "Iv1.abc", "s3cret"
	if c, err = Load(lookup(app)); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckWeb(); err != nil {
		t.Fatalf("CheckWeb with an OAuth client: %v", err)
	}
	if c, err = Load(lookup(nil)); err != nil || c.CheckWeb() != nil {
		t.Fatalf("sandbox: %v %v", err, c.CheckWeb())
	}
}

// The tags' defaults are the constants the rest of the code names.
func TestTagDefaultsAreTheConstants(t *testing.T) {
	c, err := Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Addr, c.InternalAddr, c.DrainTimeout, c.GitHubURL, c.ModelURL, c.DeadWorkerAfter, c.ModelRetryHorizon,
		c.ReplyLimitPerPR, c.ReplyLimitPerUser, c.APITokenRate, c.APITokenBurst,
		c.GitHubWritesPerMinute, c.GitHubWritesPerHour, c.InfraFailureConclusion}
	want := []any{DefaultAddr, DefaultInternalAddr, DefaultDrainTimeout, DefaultGitHubURL, DefaultModelURL, DefaultDeadWorkerAfter, DefaultModelRetryHorizon,
		DefaultReplyLimitPerPR, DefaultReplyLimitPerUser, DefaultAPITokenRate, DefaultAPITokenBurst,
		DefaultGitHubWritesPerMinute, DefaultGitHubWritesPerHour, InfraFailureFailure}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-constants +tags):\n%s", d)
	}
}

// web and worker each read their own settings and the shared ones; all
// reads both, and no variable belongs to two parts.
func TestEachProcessReadsItsOwnSettings(t *testing.T) {
	names := func(s any) []string {
		var out []string
		for _, f := range Settings(s) {
			out = append(out, f.Name)
		}
		sort.Strings(out)
		return out
	}
	web, worker, all := names(&Web{}), names(&Worker{}), names(&All{})
	shared := names(&Shared{})
	union := slices.Compact(slices.Sorted(slices.Values(append(append([]string{}, web...), worker...))))
	if d := cmp.Diff(all, union); d != "" {
		t.Errorf("all (-) against web and worker (+):\n%s", d)
	}
	for _, n := range web {
		if slices.Contains(worker, n) && !slices.Contains(shared, n) {
			t.Errorf("%s is read by web and worker but is not shared", n)
		}
	}

	// A worker never reads the model gateway's settings nor the webhook
	// secret, so a production worker starts without them; web refuses.
	app := map[string]string{"CHAKSHU_APP_ID": "42", "CHAKSHU_APP_SLUG": "s", "CHAKSHU_PRIVATE_KEY": pem,
		"CHAKSHU_SECRET_KEY": key32, "CHAKSHU_MODEL_INFERENCE_GEO": "mars"}
	if _, err := LoadFor("worker", lookup(app)); err != nil {
		t.Fatalf("worker without web's settings: %v", err)
	}
	for _, p := range []string{"web", "all"} {
		if _, err := LoadFor(p, lookup(app)); err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_WEBHOOK_SECRET:") {
			t.Errorf("%s without a webhook secret: %v", p, err)
		}
	}
	// web never reads the worker's timings, so a bad one does not stop it.
	bad := map[string]string{"CHAKSHU_RUN_REPORT_TIMEOUT": "soon", "CHAKSHU_RETAIN_WORKERS": "1s"}
	if c, err := LoadFor("web", lookup(bad)); err != nil || c.RunReportTimeout != 45*time.Minute {
		t.Fatalf("web with a bad worker timing: %v", err)
	}
	if _, err := LoadFor("worker", lookup(bad)); err == nil || !strings.HasPrefix(err.Error(), "CHAKSHU_RUN_REPORT_TIMEOUT:") {
		t.Fatalf("worker with a bad report timeout: %v", err)
	}
}

// Values the library cannot parse, and values out of the tags' bounds, get
// the one line naming the setting and what it wants.
func TestLibraryErrorsNameTheSetting(t *testing.T) {
	for k, want := range map[string]string{
		"CHAKSHU_APP_ID=abc":                 `CHAKSHU_APP_ID: want a positive number, got "abc"`,
		"CHAKSHU_APP_ID=-3":                  `CHAKSHU_APP_ID: want a positive number, got "-3"`,
		"CHAKSHU_PRUNE_BATCH=0":              `CHAKSHU_PRUNE_BATCH: want a whole number ≥ 1, got "0"`,
		"CHAKSHU_MAX_CONCURRENT_RUNS=x":      `CHAKSHU_MAX_CONCURRENT_RUNS: want a whole number ≥ 0, got "x"`,
		"CHAKSHU_RETAIN_RUNS=3w":             `CHAKSHU_RETAIN_RUNS: want a duration such as 30d or 36h, or 0 to keep for ever, got "3w"`,
		"CHAKSHU_MODEL_RETRY_HORIZON=21m":    `CHAKSHU_MODEL_RETRY_HORIZON: want a duration from 1s to 20m such as 2m, got "21m"`,
		"CHAKSHU_PRUNE_WRITE_TARGET=-1ms":    `CHAKSHU_PRUNE_WRITE_TARGET: want a duration such as 1ms, got "-1ms"`,
		"CHAKSHU_MODEL_INFERENCE_GEO=mars":   `CHAKSHU_MODEL_INFERENCE_GEO: want global or us, got "mars"`,
		"CHAKSHU_DEAD_WORKER_AFTER=eventual": `CHAKSHU_DEAD_WORKER_AFTER: want a duration of 1s or more such as 90s, got "eventual"`,
	} {
		name, v, _ := strings.Cut(k, "=")
		if _, err := Load(lookup(map[string]string{name: v})); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", k, err, want)
		}
	}
	// Lists drop blanks and the spaces around commas; blank means unset.
	c, err := Load(lookup(map[string]string{"CHAKSHU_ADMINS": " ana ,, bo ", "CHAKSHU_LOG_LEVEL": "  ", "CHAKSHU_RETAIN_RUNS": "0"}))
	if err != nil || !slices.Equal(c.Admins, []string{"ana", "bo"}) || c.LogLevel != "info" || c.Retention.Runs != 0 {
		t.Fatalf("lists, blanks and 0: %v %q %q %v", err, c.Admins, c.LogLevel, c.Retention.Runs)
	}
}
