package connectors

import (
	"net/netip"
	"testing"
)

// TestCheckDialAddr: every refused range at its first and last address, and
// the addresses one past each edge, in IPv4, IPv4-mapped and embedded forms.
func TestCheckDialAddr(t *testing.T) {
	refused := []string{
		"0.0.0.0", "0.255.255.255",
		"10.0.0.0", "10.255.255.255",
		"100.64.0.0", "100.127.255.255",
		"127.0.0.0", "127.0.0.1", "127.255.255.255",
		"169.254.0.0", "169.254.169.254", "169.254.255.255",
		"172.16.0.0", "172.31.255.255",
		"192.0.0.0", "192.0.0.255",
		"192.168.0.0", "192.168.255.255",
		"198.18.0.0", "198.19.255.255",
		"224.0.0.0", "239.255.255.255",
		"240.0.0.0", "255.255.255.255",
		"::", "::1", "::7f00:1", "::a00:1", "::ffff:ffff",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0",
		"64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:a9fe:a9fe::1",
		"100::", "100::ffff:ffff:ffff:ffff",
		"fc00::", "fd00:ec2::254", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	}
	allowed := []string{
		"1.0.0.0", "9.255.255.255", "11.0.0.0",
		"100.63.255.255", "100.128.0.0",
		"126.255.255.255", "128.0.0.0",
		"169.253.255.255", "169.255.0.0",
		"172.15.255.255", "172.32.0.0",
		"191.255.255.255", "192.0.1.0",
		"192.167.255.255", "192.169.0.0",
		"198.17.255.255", "198.20.0.0",
		"223.255.255.255", "8.8.8.8",
		"::ffff:8.8.8.8", "::1:0:0:0", "64:ff9b::808:808", "2002:808:808::1",
		"100:0:0:1::", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db8::1", "2606:4700::1111",
	}
	for _, s := range refused {
		if CheckDialAddr(netip.MustParseAddr(s), false) == nil {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range allowed {
		if err := CheckDialAddr(netip.MustParseAddr(s), false); err != nil {
			t.Errorf("%s refused: %v", s, err)
		}
	}
	// AllowLoopback opens loopback only.
	for _, s := range []string{"127.0.0.1", "127.255.255.255", "::1", "::ffff:127.0.0.1"} {
		if err := CheckDialAddr(netip.MustParseAddr(s), true); err != nil {
			t.Errorf("loopback allowed: %s refused: %v", s, err)
		}
	}
	for _, s := range []string{"10.0.0.1", "169.254.169.254", "fd00:ec2::254", "::", "0.0.0.0"} {
		if CheckDialAddr(netip.MustParseAddr(s), true) == nil {
			t.Errorf("loopback allowed: %s allowed too", s)
		}
	}
	if CheckDialAddr(netip.Addr{}, true) == nil {
		t.Error("the zero address allowed")
	}
	if dialControl(true)("tcp", "not-an-address", nil) == nil {
		t.Error("unparsable dial address allowed")
	}
}
