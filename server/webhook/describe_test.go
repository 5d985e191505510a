package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The intake reads action, installation.id and repository.full_name and
// rejects a payload that is not a JSON object, or whose three fields have
// the wrong type (it is then stored as failed).
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
		{"null values", `{"action":null,"installation":null,"repository":null}`, payloadFacts{}, true},
		{"wrong type inside repository", `{"repository":{"full_name":1}}`, payloadFacts{}, false},
		{"repository not an object", `{"repository":"a/b"}`, payloadFacts{}, false},
		{"wrong type", `{"action":5}`, payloadFacts{}, false},
		{"truncated", `{"action":"created",`, payloadFacts{}, false},
		{"trailing garbage", `{"action":"created"}x`, payloadFacts{}, false},
		{"not an object", `[1,2]`, payloadFacts{}, false},
		{"null", ` null`, payloadFacts{}, false},
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
		})
	}
}
