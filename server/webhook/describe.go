package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
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
// repository.full_name, agreeing with encoding/json decoding the payload into
// a struct with those three (pointer) fields (FuzzFacts checks it). It makes
// one validating pass (validJSON, several times faster than json.Valid) that
// hands over the top-level members; only the small values it needs are
// decoded, the rest never is (a payload may be megabytes).
func facts(payload []byte) (payloadFacts, error) {
	var f payloadFacts
	var inst struct {
		ID int64 `json:"id"`
	}
	var bad error
	member := func(key, val []byte) {
		if bad != nil {
			return
		}
		// encoding/json matches keys case-insensitively and decodes every
		// occurrence of a duplicated key in order; so does this.
		switch {
		case keyIs(key, "action"):
			if !decodeString(val, &f.Action) {
				bad = fmt.Errorf("field %q has the wrong type", "action")
			}
		case keyIs(key, "installation"):
			if isNull(val) {
				inst.ID = 0 // a null pointer
			} else if err := json.Unmarshal(val, &inst); err != nil {
				bad = fmt.Errorf("field %q has the wrong type", "installation")
			}
		case keyIs(key, "repository"):
			if isNull(val) {
				f.Repository = ""
			} else if val[0] != '{' || !members(val, func(k, v []byte) bool {
				return !keyIs(k, "full_name") || decodeString(v, &f.Repository)
			}) {
				bad = fmt.Errorf("field %q has the wrong type", "repository")
			}
		}
	}
	if !validJSON(payload, member) {
		var v any
		err := json.Unmarshal(payload, &v) // only to say where it breaks
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return payloadFacts{}, err
	}
	if i := skipSpace(payload, 0); payload[i] != '{' {
		return payloadFacts{}, errNotObject
	}
	if bad != nil {
		return payloadFacts{}, bad
	}
	f.InstallationID = inst.ID
	return f, nil
}

// decodeString decodes a JSON string value into *s as encoding/json does for
// a string field: null leaves *s alone, any other type is false.
func decodeString(val []byte, s *string) bool {
	switch {
	case isNull(val):
		return true
	case len(val) > 0 && val[0] == '"':
		if bytes.IndexByte(val, '\\') < 0 && utf8.Valid(val) {
			*s = string(val[1 : len(val)-1])
			return true
		}
		return json.Unmarshal(val, s) == nil
	default:
		return false
	}
}

func isNull(val []byte) bool { return string(val) == "null" }

// keyIs reports whether the raw key (between its quotes) names field, the way
// encoding/json matches a key to a struct field (case-insensitively).
func keyIs(raw []byte, field string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return bytes.EqualFold(raw, []byte(field))
	}
	var k string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	json.Unmarshal(q, &k) //nolint:errcheck // raw comes from valid JSON
	return bytes.EqualFold([]byte(k), []byte(field))
}

// members calls fn with each member's raw key (without quotes) and raw value
// of the object b, which must be valid JSON, until fn returns false. It is
// false when b is not an object or fn stopped it.
func members(b []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return true
		}
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		kStart, kEnd := i, skipString(b, i)
		i = skipSpace(b, kEnd)
		i = skipSpace(b, i+1) // the colon
		vEnd := skipValue(b, i)
		if !fn(b[kStart+1:kEnd-1], b[i:vEnd]) {
			return false
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
		for i < len(b) && inString[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		if b[i] == '"' {
			return i + 1
		}
		i++ // a backslash: skip the escaped byte
	}
	return len(b)
}

// inString marks the bytes skipString steps over: all but '"' and '\\'.
var inString = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// structural marks the bytes skipValue stops at inside a container.
var structural = func() (t [256]bool) {
	for _, c := range `"{}[]` {
		t[c] = true
	}
	return t
}()

// skipValue returns the index after the value starting at b[i] (valid JSON).
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
			for i++; i < len(b) && !structural[b[i]]; i++ {
			}
		}
		return i
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}

// maxDepth is encoding/json's nesting limit: deeper input is invalid.
const maxDepth = 10000

// plain marks the bytes a JSON string holds as they are: not a quote, not a
// backslash, not a control character. Like encoding/json, UTF-8 is not checked.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validJSON is json.Valid without its per-byte state machine: a single loop
// with an explicit stack (no recursion, so deep nesting cannot exhaust the
// goroutine stack), accepting exactly what json.Valid accepts (FuzzValidJSON).
// When b is an object, member (if not nil) is called with each of its
// members' raw key (without quotes) and raw value, as they are passed: the
// describing needs no second pass over the payload.
func validJSON(b []byte, member func(key, val []byte)) bool {
	var stackArr [64]byte
	stack := stackArr[:0] // '{' or '[' per open container
	var key []byte        // the top-level object's current member
	val := -1             // and where its value starts; -1: none pending
	i := skipSpace(b, 0)
	// memberKey reads a member's key at b[i], leaving i at its value.
	memberKey := func() bool {
		var k []byte
		if k, i = validKey(b, i); i < 0 {
			return false
		}
		if len(stack) == 1 {
			key, val = k, i
		}
		return true
	}
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return false
			}
			stack = append(stack, c)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' && !memberKey() {
				return false
			}
			continue // the first member's value
		case '"':
			if i = validString(b, i); i < 0 {
				return false
			}
		case 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return false
			}
			i += 4
		case 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return false
			}
			i += 5
		case 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return false
			}
			i += 4
		default:
			if i = validNumber(b, i); i < 0 {
				return false
			}
		}
		// After a value: close containers, or find the next member.
		for {
			if len(stack) == 1 && val >= 0 {
				if member != nil && stack[0] == '{' {
					member(key, b[val:i])
				}
				val = -1
			}
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = skipSpace(b, i+1)
			if top == '{' && !memberKey() {
				return false
			}
			break
		}
	}
}

// validKey checks `"key" :` at b[i] and returns the key (between its quotes)
// and the index of the value after it, or -1.
func validKey(b []byte, i int) ([]byte, int) {
	if i >= len(b) || b[i] != '"' {
		return nil, -1
	}
	end := validString(b, i)
	if end < 0 {
		return nil, -1
	}
	key := b[i+1 : end-1]
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, -1
	}
	return key, skipSpace(b, i+1)
}

// validString checks the string at b[i] == '"' and returns the index after it,
// or -1.
func validString(b []byte, i int) int {
	i++
	for {
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

// validNumber checks the number at b[i] and returns the index after it, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) int {
	digits := func(i int) int { // one or more
		j := i
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}
