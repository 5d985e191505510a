package config

import (
	"fmt"
	"net"
	"strings"
)

// SandboxAllowed says whether sandbox mode may serve on addr (the address
// actually listened on). Sandbox mode gives admin to whoever opens the
// portal, so, unless it was asked for explicitly (CHAKSHU_SANDBOX=1, or the
// `chakshu sandbox` command, which listens on 127.0.0.1 and uses its own
// SQLite file), it refuses to start on an address other than loopback, or
// against a database named by CHAKSHU_DATABASE_URL (a production database
// with no GitHub App configured is a misconfiguration, not a sandbox).
func (c *Config) SandboxAllowed(addr string) error {
	if !c.Sandbox || c.SandboxExplicit {
		return nil
	}
	if c.DatabaseURL != "" {
		return fmt.Errorf("sandbox mode (no GitHub App configured) refuses to run against CHAKSHU_DATABASE_URL: configure the App (CHAKSHU_APP_ID, CHAKSHU_PRIVATE_KEY), or set CHAKSHU_SANDBOX=1 to run the sandbox on that database on purpose")
	}
	if !loopbackAddr(addr) {
		return fmt.Errorf("sandbox mode (no GitHub App configured) listens on loopback only, and %s is not: anyone reaching it would be admin. Configure the App (CHAKSHU_APP_ID, CHAKSHU_PRIVATE_KEY), listen on 127.0.0.1, or set CHAKSHU_SANDBOX=1 to expose the sandbox on purpose", addr)
	}
	return nil
}

// loopbackAddr reports whether host:port names only loopback addresses. An
// empty host (":8080") listens on every interface; a name other than
// localhost could resolve anywhere.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// PublicURLHTTPS reports whether the public URL is https (cookies are then
// marked Secure even behind a proxy that terminates TLS).
func (c *Config) PublicURLHTTPS() bool { return strings.HasPrefix(c.PublicURL, "https://") }
