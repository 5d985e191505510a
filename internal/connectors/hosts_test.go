package connectors

import (
	"net/url"
	"testing"
)

func TestHostAllowed(t *testing.T) {
	hosts, err := NormalizeHosts("http", []string{"Jira.Example.com", "api.example.com:8443", "[2001:db8::1]", "10.1.2.3:9000"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"https://jira.example.com/x", true},
		{"https://JIRA.example.com./x", true},
		{"https://jira.example.com:443/x", true},
		{"http://jira.example.com/x", true},
		{"https://jira.example.com:8443/x", false}, // no port means the default port only
		{"https://evil.jira.example.com/x", false},
		{"https://jira.example.com.evil/x", false},
		{"https://api.example.com:8443/x", true},
		{"https://api.example.com/x", false},
		{"https://api.example.com:8444/x", false},
		{"https://[2001:db8::1]/x", true},
		{"https://[2001:db8::1]:8443/x", false},
		{"http://10.1.2.3:9000/x", true},
		{"http://10.1.2.3/x", false},
		{"ftp://jira.example.com/x", false},
	} {
		u, _ := url.Parse(c.url)
		if got := hostAllowed(u, hosts); got != c.want {
			t.Errorf("hostAllowed(%s) = %v, want %v", c.url, got, c.want)
		}
	}
	if hostAllowed(&url.URL{Scheme: "https", Host: "jira.example.com"}, nil) {
		t.Error("no hosts allowed a call")
	}
}
