package webhook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reference is what facts must agree with: encoding/json decoding the whole payload.
func reference(b []byte) (payloadFacts, bool) {
	var p struct {
		Action       string `json:"action"`
		Installation *struct {
			ID int64 `json:"id"`
		} `json:"installation"`
		Repository *struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return payloadFacts{}, false
	}
	f := payloadFacts{Action: p.Action}
	if p.Installation != nil {
		f.InstallationID = p.Installation.ID
	}
	if p.Repository != nil {
		f.Repository = p.Repository.FullName
	}
	return f, true
}

func TestFacts(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want payloadFacts
		ok   bool
	}{
		{"all three", `{"action":"opened","x":{"action":"no"},"installation":{"id":7,"account":{"id":1}},"repository":{"id":1,"full_name":"a/b"}}`, payloadFacts{"opened", 7, "a/b"}, true},
		{"none", `{"zen":"x","hook_id":1}`, payloadFacts{}, true},
		{"escaped strings and nesting", " {\"s\":\"a\\\"}{[\" , \"arr\":[1,[2,{\"action\":3}]], \"action\" : \"labeled\" } ", payloadFacts{Action: "labeled"}, true},
		{"last duplicate wins", `{"action":"a","action":"b"}`, payloadFacts{Action: "b"}, true},
		// As encoding/json: null leaves a string alone but drops an object, and
		// a second object is decoded into the first.
		{"null after a string", `{"action":"a","action":null}`, payloadFacts{Action: "a"}, true},
		{"null after an object", `{"repository":{"full_name":"a/b"},"repository":null}`, payloadFacts{}, true},
		{"object after an object", `{"repository":{"full_name":"a/b"},"repository":{"id":1},"installation":{"id":7},"installation":{}}`,
			payloadFacts{InstallationID: 7, Repository: "a/b"}, true},
		{"case and escapes in keys", `{"ACTION":"x","repo\u0073itory":{"Full_Name":"a\/b"}}`, payloadFacts{Action: "x", Repository: "a/b"}, true},
		{"wrong type inside repository", `{"repository":{"full_name":1}}`, payloadFacts{}, false},
		{"repository not an object", `{"repository":"a/b"}`, payloadFacts{}, false},
		{"null values", `{"action":null,"installation":null,"repository":null}`, payloadFacts{}, true},
		{"numbers and literals", `{"n":-1.5e3,"t":true,"f":false,"action":"x"}`, payloadFacts{Action: "x"}, true},
		{"truncated", `{"action":"created",`, payloadFacts{}, false},
		{"not an object", `[1,2]`, payloadFacts{}, false},
		{"wrong type", `{"action":5}`, payloadFacts{}, false},
		{"empty", ``, payloadFacts{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := facts([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); tc.ok && diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if ref, ok := reference([]byte(tc.in)); ok != tc.ok || (ok && ref != tc.want) {
				t.Fatalf("the case disagrees with encoding/json: %+v %v", ref, ok)
			}
		})
	}
}

// FuzzFacts: facts agrees with encoding/json on every input.
func FuzzFacts(f *testing.F) {
	for _, s := range []string{
		`{"action":"opened","installation":{"id":7},"repository":{"full_name":"a/b"}}`,
		`{"a":"\"}","action":"x"}`, `[]`, `{"action":1}`, `{"installation":{"id":"x"}}`, `{`, `"s"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := facts(b)
		want, ok := reference(b)
		if (err == nil) != ok {
			t.Fatalf("facts err %v, encoding/json ok %v", err, ok)
		}
		if ok && got != want {
			t.Fatalf("facts %+v, encoding/json %+v", got, want)
		}
	})
}

// FuzzValidJSON: validJSON accepts exactly what json.Valid accepts.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"\u00e9\n"]}`, ` [ ] `, `{}`, `0`, `-`, `01`, `1.`, `1e`, `"\x"`, `"\u12"`,
		"\"\x01\"", `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `tru`, `nul`, `{"a":{"b":[{}]}}x`, "\"\xff\"",
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b, nil), json.Valid(b); got != want {
			t.Fatalf("validJSON %v, json.Valid %v for %q", got, want, b)
		}
	})
}
