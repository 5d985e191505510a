package findings

import (
	"strings"
	"testing"
)

func TestParseResult(t *testing.T) {
	ok := `{"summary":"s","checked":{"files":["a.go"],"skills":[]},"findings":[
	 {"path":"a.go","line":3,"severity":"major","category":"bug","title":"Nil deref","body":"b","suggestion":"x := 1"}]}`
	r, err := ParseResult([]byte(ok))
	if err != nil {
		t.Fatalf("valid result refused: %v", err)
	}
	if r.Findings[0].Side != "RIGHT" || *r.Findings[0].Suggestion != "x := 1" {
		t.Fatalf("defaults: %+v", r.Findings[0])
	}
	bad := map[string]string{
		"unknown field":  `{"summary":"s","checked":{},"findings":[],"extra":1}`,
		"bad severity":   `{"summary":"s","findings":[{"path":"a","line":1,"severity":"critical","title":"t"}]}`,
		"absolute path":  `{"summary":"s","findings":[{"path":"/etc/passwd","line":1,"severity":"nit","title":"t"}]}`,
		"dot dot":        `{"summary":"s","findings":[{"path":"a/../../b","line":1,"severity":"nit","title":"t"}]}`,
		"line zero":      `{"summary":"s","findings":[{"path":"a","line":0,"severity":"nit","title":"t"}]}`,
		"start after":    `{"summary":"s","findings":[{"path":"a","line":2,"start_line":5,"severity":"nit","title":"t"}]}`,
		"no title":       `{"summary":"s","findings":[{"path":"a","line":1,"severity":"nit","title":" "}]}`,
		"two line title": `{"summary":"s","findings":[{"path":"a","line":1,"severity":"nit","title":"a\nb"}]}`,
		"bad side":       `{"summary":"s","findings":[{"path":"a","line":1,"severity":"nit","title":"t","side":"UP"}]}`,
		"not json":       `{"summary":`,
		"trailing":       `{"summary":"s"} {}`,
		"stray brace":    `{"summary":"s"}}`,
		"stray bracket":  `{"summary":"s"}]`,
		"wrong type":     `{"summary":3}`,
	}
	for name, in := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseResult([]byte(in)); err == nil {
				t.Fatalf("accepted %s", in)
			}
		})
	}
}

func TestHiddenIDStable(t *testing.T) {
	a := HiddenID("a.go", "Bug", "Unchecked error!")
	if b := HiddenID("a.go", "bug", "unchecked   error"); a != b {
		t.Fatalf("rewording changed the id: %s != %s", a, b)
	}
	if HiddenID("b.go", "bug", "Unchecked error") == a || HiddenID("a.go", "style", "Unchecked error") == a {
		t.Fatal("path or category did not change the id")
	}
	if len(a) != 16 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Fatalf("id %q is not 16 hex digits", a)
	}
}

func TestSeverity(t *testing.T) {
	if !Major.AtLeast(Minor) || Nit.AtLeast(Minor) || !Minor.AtLeast(Minor) || Severity("x").AtLeast(Nit) {
		t.Fatal("AtLeast ordering is wrong")
	}
}

func FuzzParseResult(f *testing.F) {
	f.Add([]byte(`{"summary":"s","checked":{"files":["a"],"skills":[]},"findings":[{"path":"a","line":1,"severity":"nit","title":"t"}]}`))
	f.Add([]byte(`{"findings":[{"path":"../x","line":-1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseResult(b)
		if err != nil {
			return
		}
		for _, fd := range r.Findings {
			if fd.Line < 1 || !fd.Severity.Valid() || strings.HasPrefix(fd.Path, "/") || hasDotDot(fd.Path) {
				t.Fatalf("accepted an invalid finding: %+v", fd)
			}
		}
	})
}
