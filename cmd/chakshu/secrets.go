package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/server/auth"
)

const secretsUsage = `Usage: chakshu secrets rotate

Seals every stored secret again under the current CHAKSHU_SECRET_KEY: connector credentials
and users' GitHub tokens (kept so API tokens can refresh their owner's access). Values sealed
under a key listed in CHAKSHU_SECRET_KEY_PREVIOUS are re-sealed; values already under the
current key are left. It fails, naming them, when some value opens under none of the keys.
Safe to run again and while web and worker processes run. Procedure: docs/production.md,
"Rotating the secret key".`

// secretsCmd implements "chakshu secrets rotate".
func secretsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || args[0] != "rotate" {
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, secretsUsage)
			return nil
		}
		fmt.Fprintln(stderr, secretsUsage)
		return errUsage
	}
	cfg, creds, err := credentialSealer()
	if err != nil {
		return err
	}
	tokens, err := auth.TokenSealer(cfg.SecretKey, cfg.SecretKeyPrevious)
	if err != nil {
		return fmt.Errorf("CHAKSHU_SECRET_KEY: %w", err)
	}
	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := (&connectors.Credentials{DB: db.Client, Sealer: creds}).ResealAll(ctx)
	if err != nil {
		return err
	}
	u, err := auth.ResealTokens(ctx, db, tokens)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "connector credentials: %d re-sealed under the current key, %d already under it\n", c.Resealed, c.Current)
	fmt.Fprintf(stdout, "users' GitHub tokens: %d re-sealed under the current key, %d already under it\n", u.Resealed, u.Current)
	if bad := append(c.Unreadable, u.Unreadable...); len(bad) > 0 {
		return errors.New("these open under no accepted key (add the key that sealed them to CHAKSHU_SECRET_KEY_PREVIOUS, or set them again): " + strings.Join(bad, "; "))
	}
	return nil
}

// loadConfigWithKey loads the settings and, in sandbox mode, the secret key
// generated into the data dir (commands that seal or open stored secrets).
func loadConfigWithKey() (*config.Config, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	if cfg.Sandbox {
		if err := cfg.EnsureSecretKey(); err != nil {
			return nil, fmt.Errorf("secret key: %w", err)
		}
	}
	return cfg, nil
}

// credentialSealer loads the settings and the sealer of connector
// credentials under the current and previous secret keys.
func credentialSealer() (*config.Config, *connectors.Sealer, error) {
	cfg, err := loadConfigWithKey()
	if err != nil {
		return nil, nil, err
	}
	s, err := connectors.NewSealer(cfg.SecretKey, cfg.SecretKeyPrevious...)
	if err != nil {
		return nil, nil, fmt.Errorf("CHAKSHU_SECRET_KEY: %w", err)
	}
	return cfg, s, nil
}

// openMigrated opens the configured database and migrates it.
func openMigrated(ctx context.Context, cfg *config.Config) (*store.DB, error) {
	db, err := store.Open(ctx, store.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
