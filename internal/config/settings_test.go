package config

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every variable Load reads is in Settings (which --help prints) and every
// name in Settings is read, so the list cannot drift from the code.
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
		t.Errorf("Settings names a variable twice:\n%s", d)
	}
	if d := cmp.Diff(got, listed); d != "" {
		t.Errorf("variables Load reads (-) against Settings (+):\n%s", d)
	}
}

// README's Configuration table has one row per setting in Settings, no more.
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
		t.Errorf("Settings (-) against README's Configuration table (+):\n%s", d)
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
