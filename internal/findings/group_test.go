package findings

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sqlFinding is the finding the cases below reword, move and contrast.
var sqlFinding = Finding{
	Path: "db/users.go", Line: 42, Side: "RIGHT", Severity: Major, Category: "security",
	Evidence: `q := "SELECT * FROM users WHERE id = " + id`,
	Title:    "SQL built from strings",
	Body:     "The query is assembled by concatenating request values; use placeholders so the driver escapes them.",
}

func with(f Finding, edit func(*Finding)) Finding {
	edit(&f)
	return f
}

func TestSame(t *testing.T) {
	cases := []struct {
		name string
		b    Finding
		want bool
	}{
		{"identical", sqlFinding, true},
		{"same hidden ID, body reworded and far away", with(sqlFinding, func(f *Finding) {
			f.Line, f.Body = 400, "Concatenation again."
		}), true},
		{"reworded title and body", with(sqlFinding, func(f *Finding) {
			f.Title = "Possible SQL injection: query assembled with +"
			f.Body = "User input flows into the SQL text via string concatenation. Pass it as a bound parameter instead."
		}), true},
		{"reworded, one severity step down", with(sqlFinding, func(f *Finding) {
			f.Title, f.Severity = "Query text concatenates request values", Minor
		}), true},
		{"reworded and moved three lines", with(sqlFinding, func(f *Finding) {
			f.Title, f.Line = "SQL query built by string concatenation", 45
		}), true},
		{"moved as a range ending nearby", with(sqlFinding, func(f *Finding) {
			f.StartLine, f.Line = 30, 39
		}), true},
		{"moved with a longer quote of the same code", with(sqlFinding, func(f *Finding) {
			f.StartLine, f.Line = 43, 44
			f.Evidence = "rows, err := db.Query(\n\t" + sqlFinding.Evidence + ")"
		}), true},
		{"moved without a quote", with(sqlFinding, func(f *Finding) { f.Line, f.Evidence = 40, "" }), true},
		{"reworded, moved beyond nearby lines", with(sqlFinding, func(f *Finding) {
			f.Title, f.Line = "SQL query built by string concatenation", 42+NearLines+1
		}), false},
		{"same kind of finding two lines down, other code", with(sqlFinding, func(f *Finding) {
			f.Line, f.Evidence = 44, `q2 := "DELETE FROM users WHERE id = " + id`
		}), false},
		{"same line, different issue of the same category", with(sqlFinding, func(f *Finding) {
			f.Title = "Hard-coded database password"
			f.Body = "The password is committed in the source; read it from the environment or a secret store instead."
		}), false},
		{"same line, different issue of another category", with(sqlFinding, func(f *Finding) {
			f.Category, f.Severity = "errors", Minor
			f.Title = "Unchecked error from rows.Close"
			f.Body = "The error returned by Close is dropped, so a failed read goes unnoticed."
		}), false},
		{"same text under another category", with(sqlFinding, func(f *Finding) {
			f.Category = "correctness"
			f.Title = "SQL built from string concatenation"
		}), true},
		{"different file", with(sqlFinding, func(f *Finding) { f.Path = "db/orders.go" }), false},
		{"other side of the diff", with(sqlFinding, func(f *Finding) { f.Side = "LEFT" }), false},
		{"empty side is RIGHT", with(sqlFinding, func(f *Finding) { f.Side = "" }), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := sqlFinding
			if got := Same(&a, &tc.b); got != tc.want {
				t.Errorf("Same = %v, want %v (similarity %.2f)", got, tc.want, Similarity(&a, &tc.b))
			}
			if got := Same(&tc.b, &a); got != tc.want {
				t.Errorf("Same is not symmetric: reversed gives %v", got)
			}
		})
	}
}

func TestGroup(t *testing.T) {
	reworded := with(sqlFinding, func(f *Finding) {
		f.Title, f.Line = "Possible SQL injection: query assembled with +", 43
	})
	secret := with(sqlFinding, func(f *Finding) {
		f.Title, f.Body = "Hard-coded database password", "The password is committed in the source."
	})
	other := with(sqlFinding, func(f *Finding) { f.Path = "db/orders.go" })
	fs := []Finding{sqlFinding, secret, other, reworded, secret}
	want := [][]int{{0, 3}, {1, 4}, {2}}
	if diff := cmp.Diff(want, Group(fs)); diff != "" {
		t.Errorf("Group (-want +got):\n%s", diff)
	}
	if !Same(&reworded, &sqlFinding) || Same(&reworded, &other) || Same(&reworded, &secret) {
		t.Error("a reworded finding is the Same as its original only")
	}
	if got := Group(nil); len(got) != 0 {
		t.Errorf("Group(nil) = %v", got)
	}
}
