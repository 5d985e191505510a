package connectors

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/connectorcredential"
	"github.com/chakshu-dev/chakshu/ent/installation"
)

// ErrNoCredential means no credential of that name is stored.
var ErrNoCredential = errors.New("connectors: no such credential")

var credName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// MaxCredentialBytes caps a stored secret.
const MaxCredentialBytes = 8 << 10

// Credentials stores connector credentials encrypted.
type Credentials struct {
	DB     *ent.Client
	Sealer *Sealer
}

// CredentialInfo describes a stored credential without its secret.
type CredentialInfo struct {
	Connector, Name, CreatedBy string
	UpdatedAt                  string
	// Hosts are the hosts the http connector may send it to.
	Hosts []string
}

func additionalData(installationID int, connector, name string) []byte {
	return []byte("chakshu/connector-credential/v1\x00" + strconv.Itoa(installationID) + "\x00" + connector + "\x00" + name)
}

// ValidName reports whether s can name a connector or a credential.
func ValidName(s string) bool { return credName.MatchString(s) }

// Set stores (or replaces) credential name of connector for installation
// installationID (the ent id), with the hosts it may be sent to (required
// for the http connector; see NormalizeHosts).
func (c *Credentials) Set(ctx context.Context, installationID int, connector, name, secret, by string, hosts []string) error {
	if !ValidName(connector) || !ValidName(name) {
		return fmt.Errorf("connectors: connector and credential names are letters, digits, '.', '_' and '-'")
	}
	if secret == "" || len(secret) > MaxCredentialBytes {
		return fmt.Errorf("connectors: a credential is 1 to %d bytes", MaxCredentialBytes)
	}
	hosts, err := NormalizeHosts(connector, hosts)
	if err != nil {
		return err
	}
	ct, err := c.Sealer.Seal([]byte(secret), additionalData(installationID, connector, name))
	if err != nil {
		return err
	}
	// Update in place, else create; a concurrent create loses to the unique
	// index and then updates.
	for attempt := 0; attempt < 2; attempt++ {
		n, err := c.DB.ConnectorCredential.Update().Where(
			connectorcredential.HasInstallationWith(installation.ID(installationID)),
			connectorcredential.Connector(connector), connectorcredential.Name(name)).
			SetCiphertext(ct).SetCreatedBy(by).SetHosts(hosts).Save(ctx)
		if err != nil {
			return fmt.Errorf("connectors: store credential: %w", err)
		}
		if n > 0 {
			return nil
		}
		err = c.DB.ConnectorCredential.Create().SetInstallationID(installationID).
			SetConnector(connector).SetName(name).SetCiphertext(ct).SetCreatedBy(by).SetHosts(hosts).Exec(ctx)
		if err == nil {
			return nil
		}
		if !ent.IsConstraintError(err) {
			return fmt.Errorf("connectors: store credential: %w", err)
		}
	}
	return nil
}

func (c *Credentials) query(installationID int, connector, name string) *ent.ConnectorCredentialQuery {
	return c.DB.ConnectorCredential.Query().Where(
		connectorcredential.HasInstallationWith(installation.ID(installationID)),
		connectorcredential.Connector(connector), connectorcredential.Name(name))
}

// Get returns the secret, or ErrNoCredential.
func (c *Credentials) Get(ctx context.Context, installationID int, connector, name string) (string, error) {
	secret, _, err := c.Lookup(ctx, installationID, connector, name)
	return secret, err
}

// Lookup returns the secret and the hosts it may be sent to, or ErrNoCredential.
func (c *Credentials) Lookup(ctx context.Context, installationID int, connector, name string) (secret string, hosts []string, err error) {
	row, err := c.query(installationID, connector, name).Only(ctx)
	if ent.IsNotFound(err) {
		return "", nil, ErrNoCredential
	}
	if err != nil {
		return "", nil, fmt.Errorf("connectors: load credential: %w", err)
	}
	pt, err := c.Sealer.Open(row.Ciphertext, additionalData(installationID, connector, name))
	if err != nil {
		return "", nil, err
	}
	return string(pt), row.Hosts, nil
}

// Delete removes a credential; deleting a missing one is ErrNoCredential.
func (c *Credentials) Delete(ctx context.Context, installationID int, connector, name string) error {
	n, err := c.DB.ConnectorCredential.Delete().Where(
		connectorcredential.HasInstallationWith(installation.ID(installationID)),
		connectorcredential.Connector(connector), connectorcredential.Name(name)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("connectors: delete credential: %w", err)
	}
	if n == 0 {
		return ErrNoCredential
	}
	return nil
}

// List returns the installation's credentials, without secrets.
func (c *Credentials) List(ctx context.Context, installationID int) ([]CredentialInfo, error) {
	rows, err := c.DB.ConnectorCredential.Query().
		Where(connectorcredential.HasInstallationWith(installation.ID(installationID))).
		Order(ent.Asc(connectorcredential.FieldConnector), ent.Asc(connectorcredential.FieldName)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("connectors: list credentials: %w", err)
	}
	out := make([]CredentialInfo, 0, len(rows))
	for _, r := range rows {
		out = append(out, CredentialInfo{Connector: r.Connector, Name: r.Name, CreatedBy: r.CreatedBy,
			UpdatedAt: r.UpdatedAt.UTC().Format("2006-01-02 15:04:05Z"), Hosts: r.Hosts})
	}
	return out, nil
}

// Resealed counts what a rotation did to one kind of sealed value.
type Resealed struct {
	// Resealed were sealed under a previous key and now under the current one.
	Resealed int
	// Current were already sealed under the current key.
	Current int
	// Unreadable opened under no accepted key (left as they are).
	Unreadable []string
}

// ResealAll seals every stored credential under the Sealer's current key
// (chakshu secrets rotate). Each row is updated only if its ciphertext is
// still the one read, so a credential set meanwhile is not overwritten.
func (c *Credentials) ResealAll(ctx context.Context) (Resealed, error) {
	var out Resealed
	rows, err := c.DB.ConnectorCredential.Query().WithInstallation().All(ctx)
	if err != nil {
		return out, fmt.Errorf("connectors: list credentials: %w", err)
	}
	for _, row := range rows {
		if row.Edges.Installation == nil {
			continue
		}
		ad := additionalData(row.Edges.Installation.ID, row.Connector, row.Name)
		ct, changed, err := c.Sealer.Reseal(row.Ciphertext, ad)
		switch {
		case errors.Is(err, ErrOpen):
			out.Unreadable = append(out.Unreadable, fmt.Sprintf("installation %s credential %s/%s", row.Edges.Installation.AccountLogin, row.Connector, row.Name))
			continue
		case err != nil:
			return out, err
		case !changed:
			out.Current++
			continue
		}
		n, err := c.DB.ConnectorCredential.Update().Where(connectorcredential.ID(row.ID),
			connectorcredential.CiphertextEQ(row.Ciphertext)).SetCiphertext(ct).Save(ctx)
		if err != nil {
			return out, fmt.Errorf("connectors: reseal credential: %w", err)
		}
		if n == 0 { // set again meanwhile, under the current key
			out.Current++
			continue
		}
		out.Resealed++
	}
	return out, nil
}
