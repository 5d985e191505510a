package textcut

import "testing"

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: not split
		{"日本語", 4, "日"},
		{"日本語", 6, "日本"},
		{"abc", 0, ""},
		{"abc", -1, ""},
	} {
		if got := Bytes(c.s, c.n); got != c.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
