package connectors

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxCredentialHosts caps the hosts one credential may be sent to.
const MaxCredentialHosts = 20

// NormalizeHosts checks the hosts an admin binds a credential to and returns
// them lower-cased, sorted and without duplicates. Each is an exact host name
// or IP address with an optional port ("jira.example.com",
// "jira.example.com:8443", "[2001:db8::1]:443"): no scheme, path, user or
// wildcard. Without a port, only the URL scheme's default port matches. The
// http connector needs at least one (issue 19 item 5: a reviewer.yaml cannot
// choose where an admin's secret goes).
func NormalizeHosts(connector string, hosts []string) ([]string, error) {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		n, err := normalizeHost(h)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if connector == "http" && len(out) == 0 {
		return nil, fmt.Errorf("connectors: an http credential needs the hosts it may be sent to (e.g. jira.example.com)")
	}
	if len(out) > MaxCredentialHosts {
		return nil, fmt.Errorf("connectors: at most %d hosts per credential", MaxCredentialHosts)
	}
	slices.Sort(out)
	return out, nil
}

func normalizeHost(h string) (string, error) {
	bad := fmt.Errorf("connectors: host %q: want a host name or address with an optional port, like jira.example.com or jira.example.com:8443", h)
	if len(h) > 260 || strings.ContainsAny(h, "/?#@*\\%") {
		return "", bad
	}
	u, err := url.Parse("//" + h)
	if err != nil || u.Host != h || u.Hostname() == "" || u.User != nil || u.Path != "" {
		return "", bad
	}
	name := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if name == "" || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		return "", bad
	}
	if strings.Contains(name, ":") && net.ParseIP(name) == nil {
		return "", bad
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", bad
		}
		return net.JoinHostPort(name, strconv.Itoa(n)), nil
	}
	if strings.HasSuffix(h, ":") {
		return "", bad
	}
	if strings.Contains(name, ":") {
		return "[" + name + "]", nil
	}
	return name, nil
}

// hostAllowed reports whether a request to u may carry a credential bound to
// hosts: u's host name and port equal one entry (an entry without a port
// stands for the scheme's default port).
func hostAllowed(u *url.URL, hosts []string) bool {
	name := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	def := map[string]string{"https": "443", "http": "80"}[u.Scheme]
	if port == "" {
		port = def
	}
	for _, h := range hosts {
		hn, hp := h, ""
		if i := strings.LastIndex(h, ":"); i >= 0 && !strings.HasSuffix(h, "]") {
			hn, hp = h[:i], h[i+1:]
		}
		hn = strings.TrimSuffix(strings.TrimPrefix(hn, "["), "]")
		if hp == "" {
			hp = def
		}
		if hn == name && hp == port && port != "" {
			return true
		}
	}
	return false
}
