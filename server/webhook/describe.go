package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// payloadFacts are the fields of a payload the intake stores beside it.
type payloadFacts struct {
	Action         string
	InstallationID int64
	Repository     string
}

// errNotObject is a payload that is JSON but not an object.
var errNotObject = errors.New("the payload is not a JSON object")

// facts validates payload as JSON and reads action, installation.id and
// repository.full_name. It makes one validating pass and then decodes only
// those three values (a payload may be megabytes; the rest is never decoded).
func facts(payload []byte) (payloadFacts, error) {
	var f payloadFacts
	if !json.Valid(payload) {
		var v any
		err := json.Unmarshal(payload, &v) // only to say where it breaks
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return f, err
	}
	action, inst, repo, ok := topLevel(payload)
	if !ok {
		return f, errNotObject
	}
	if action != nil {
		var s string
		if err := json.Unmarshal(action, &s); err != nil && string(action) != "null" {
			return f, fmt.Errorf("field %q has the wrong type", "action")
		}
		f.Action = s
	}
	if inst != nil {
		var v struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(inst, &v); err != nil && string(inst) != "null" {
			return f, fmt.Errorf("field %q has the wrong type", "installation")
		}
		f.InstallationID = v.ID
	}
	if repo != nil {
		var v struct {
			FullName string `json:"full_name"`
		}
		if err := json.Unmarshal(repo, &v); err != nil && string(repo) != "null" {
			return f, fmt.Errorf("field %q has the wrong type", "repository")
		}
		f.Repository = v.FullName
	}
	return f, nil
}

// topLevel finds the raw values of the top-level keys action, installation and
// repository in b, which must be valid JSON. ok is false when b is not an object.
// As with encoding/json, the last occurrence of a duplicated key wins.
func topLevel(b []byte) (action, inst, repo []byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, nil, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return action, inst, repo, true
		}
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		kStart, kEnd := i, skipString(b, i)
		key := b[kStart+1 : kEnd-1]
		i = skipSpace(b, kEnd)
		i = skipSpace(b, i+1) // the colon
		vEnd := skipValue(b, i)
		k := string(key)
		if bytes.IndexByte(key, '\\') >= 0 {
			json.Unmarshal(b[kStart:kEnd], &k) //nolint:errcheck // b is valid JSON
		}
		// encoding/json matches keys case-insensitively; so does this.
		switch {
		case strings.EqualFold(k, "action"):
			action = b[i:vEnd]
		case strings.EqualFold(k, "installation"):
			inst = b[i:vEnd]
		case strings.EqualFold(k, "repository"):
			repo = b[i:vEnd]
		}
		i = vEnd
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}
