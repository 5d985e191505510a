package connectors

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// refusedPrefixes are the address ranges the http connector never connects
// to, whatever a host name resolved to (issue 19 item 5: no loopback,
// private, link-local, metadata or otherwise internal address, so a
// reviewer.yaml cannot reach the network Chakshu runs in, and DNS
// rebinding cannot either: the check runs on the address being dialled).
var refusedPrefixes = mustPrefixes(
	"0.0.0.0/8",      // "this network", unspecified
	"10.0.0.0/8",     // private
	"100.64.0.0/10",  // carrier-grade NAT
	"127.0.0.0/8",    // loopback
	"169.254.0.0/16", // link-local, cloud metadata 169.254.169.254
	"172.16.0.0/12",  // private
	"192.0.0.0/24",   // IETF protocol assignments
	"192.168.0.0/16", // private
	"198.18.0.0/15",  // benchmarking
	"224.0.0.0/4",    // multicast
	"240.0.0.0/4",    // reserved, broadcast 255.255.255.255
	"::/96",          // unspecified, IPv4-compatible (deprecated) addresses
	"::1/128",        // loopback
	"100::/64",       // discard
	"fc00::/7",       // unique local, AWS metadata fd00:ec2::254
	"fe80::/10",      // link-local
	"fec0::/10",      // site-local (deprecated)
	"ff00::/8",       // multicast
)

// embeddingPrefixes carry an IPv4 address that is checked too.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// CheckDialAddr refuses an address the http connector must not connect to;
// allowLoopback lets 127.0.0.0/8 and ::1 through (tests).
func CheckDialAddr(a netip.Addr, allowLoopback bool) error {
	a = a.Unmap() // ::ffff:a.b.c.d is a.b.c.d
	if !a.IsValid() {
		return fmt.Errorf("connectors: no address")
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return CheckDialAddr(netip.AddrFrom4([4]byte(b[12:16])), allowLoopback)
		case sixTo4.Contains(a):
			return CheckDialAddr(netip.AddrFrom4([4]byte(b[2:6])), allowLoopback)
		}
	}
	if allowLoopback && a.IsLoopback() {
		return nil
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return fmt.Errorf("connectors: %s is an internal address (%s); the http connector calls public addresses only", a, p)
		}
	}
	return nil
}

// dialControl runs after DNS resolution, on the address about to be dialled.
func dialControl(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("connectors: dial %s: %w", address, err)
		}
		if err := CheckDialAddr(ap.Addr(), allowLoopback); err != nil {
			return toolErr("the endpoint's address %s is internal; the http connector calls public addresses only", ap.Addr())
		}
		return nil
	}
}

// guardedTransport is the http connector's transport: every connection's
// address passes CheckDialAddr, and no proxy is used (a proxy from the
// environment would dial the internal address for us).
func guardedTransport(allowLoopback bool) *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: dialControl(allowLoopback)}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: 15 * time.Second,
	}
}
