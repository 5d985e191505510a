package mentions

import (
	"slices"
	"testing"
)

// The oracle itself: what GitHub renders as a mention, and what it does not.
func TestFind(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"hi @alice", []string{"@alice"}},
		{"@acme/team", []string{"@acme/team"}},
		{"mail a@b.com", nil},
		{"_@victim_", []string{"@victim"}},
		{"**@victim**", []string{"@victim"}},
		{"&#64;victim", []string{"@victim"}},
		{"&#x40;victim", []string{"@victim"}},
		{"&commat;org/team", []string{"@org/team"}},
		{"@&#118;ictim", []string{"@victim"}},
		{"`@victim`", nil},
		{"```\n@victim\n```", nil},
		{"[@victim](https://example.com)", nil},
		{"@\u200bvictim", nil},
		{"x_@victim", nil},
		{"＠victim", []string{"＠victim"}},
	} {
		if got := Find(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Find(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
