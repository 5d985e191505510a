package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/auth"
)

// chakshu secrets rotate re-seals credentials and users' GitHub tokens that a
// previous key sealed under the current key, leaves current ones, is safe to
// run again, and fails naming a value no accepted key opens.
func TestSecretsRotate(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			oldKey, newKey := bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{8}, 32)
			db := commandDB(t, d)
			in := db.Installation.Create().SetGithubID(42).SetAccountLogin("acme").SaveX(ctx)
			oldSealer, _ := connectors.NewSealer(oldKey)
			oldCreds := &connectors.Credentials{DB: db.Client, Sealer: oldSealer}
			for _, n := range []string{"jira", "wiki"} {
				if err := oldCreds.Set(ctx, in.ID, "http", n, "secret-"+n, "ops", []string{"x.example.com"}); err != nil {
					t.Fatal(err)
				}
			}
			// A user's token sealed the way login seals it, under the old key.
			u := db.User.Create().SetGithubID(5).SetLogin("ana").SaveX(ctx)
			oldTokens, _ := auth.TokenSealer(oldKey, nil)
			sealed, _ := oldTokens.Seal([]byte("gho_token"), []byte(fmt.Sprintf("user/%d/github-token", u.ID)))
			db.User.UpdateOne(u).SetGithubTokenSealed(sealed).ExecX(ctx)

			t.Setenv("CHAKSHU_SECRET_KEY", base64.StdEncoding.EncodeToString(newKey))
			t.Setenv("CHAKSHU_SECRET_KEY_PREVIOUS", base64.StdEncoding.EncodeToString(oldKey))
			var out, errb bytes.Buffer
			if err := run(ctx, []string{"secrets", "rotate"}, &out, &errb); err != nil {
				t.Fatalf("rotate: %v %s", err, errb.String())
			}
			for _, want := range []string{"connector credentials: 2 re-sealed under the current key, 0 already", "users' GitHub tokens: 1 re-sealed under the current key, 0 already"} {
				if !strings.Contains(out.String(), want) {
					t.Fatalf("rotate said:\n%s\nwant %q", out.String(), want)
				}
			}
			// The new key alone opens everything now.
			newSealer, _ := connectors.NewSealer(newKey)
			for _, n := range []string{"jira", "wiki"} {
				if got, err := (&connectors.Credentials{DB: db.Client, Sealer: newSealer}).Get(ctx, in.ID, "http", n); err != nil || got != "secret-"+n {
					t.Fatalf("credential %s under the new key alone: %q %v", n, got, err)
				}
			}
			newTokens, _ := auth.TokenSealer(newKey, nil)
			if pt, err := newTokens.Open(db.User.GetX(ctx, u.ID).GithubTokenSealed, []byte(fmt.Sprintf("user/%d/github-token", u.ID))); err != nil || string(pt) != "gho_token" {
				t.Fatalf("user token under the new key alone: %q %v", pt, err)
			}

			out.Reset()
			if err := run(ctx, []string{"secrets", "rotate"}, &out, &errb); err != nil || !strings.Contains(out.String(), "0 re-sealed under the current key, 2 already under it") {
				t.Fatalf("second rotate: %v\n%s", err, out.String())
			}

			// A credential of a key nobody listed: named, exit non-zero, others intact.
			stranger, _ := connectors.NewSealer(bytes.Repeat([]byte{9}, 32))
			if err := (&connectors.Credentials{DB: db.Client, Sealer: stranger}).Set(ctx, in.ID, "http", "lost", "x", "ops", []string{"x.example.com"}); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			err := run(ctx, []string{"secrets", "rotate"}, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), "installation acme credential http/lost") || !strings.Contains(err.Error(), "CHAKSHU_SECRET_KEY_PREVIOUS") {
				t.Fatalf("rotate with an unreadable credential: %v", err)
			}
			if err := run(ctx, []string{"secrets", "turn"}, &out, &errb); err != errUsage {
				t.Fatalf("unknown action: %v", err)
			}
		})
	}
}
