package strictjson

import (
	"encoding/json"
	"errors"
	"testing"
)

type obj struct {
	A int `json:"a"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in       string
		ok       bool
		trailing bool
	}{
		{`{"a":1}`, true, false},
		{" \n{\"a\":1}\t\n ", true, false},
		{`{}`, true, false},
		{`{}}`, false, true},
		{`{}]`, false, true},
		{`{} {}`, false, true},
		{`{}x`, false, true},
		{`{} 1`, false, true},
		{`{"b":1}`, false, false},
		{`{"a":"x"}`, false, false},
		{``, false, false},
		{`{`, false, false},
	} {
		var v obj
		err := Decode([]byte(tc.in), &v)
		if (err == nil) != tc.ok {
			t.Errorf("Decode(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if errors.Is(err, ErrTrailing) != tc.trailing {
			t.Errorf("Decode(%q) err = %v, trailing want %v", tc.in, err, tc.trailing)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{}}`, `{} {}`, `[]`, `{"a":1,"a":2}`, ` {"a" : 1 } `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v obj
		if Decode([]byte(s), &v) == nil && !json.Valid([]byte(s)) {
			t.Fatalf("Decode accepted invalid JSON %q", s)
		}
	})
}
