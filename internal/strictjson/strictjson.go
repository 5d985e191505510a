// Package strictjson decodes one JSON value into a Go value, refusing fields
// the value does not declare and anything after the value.
//
// encoding/json's Decoder alone is not enough: Decode stops after the first
// value, and Decoder.More reports false before a stray '}' or ']', so "{}}"
// passes a Decode-then-More check.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ErrTrailing is returned when data follows the JSON value.
var ErrTrailing = errors.New("data after the JSON value")

// Decode decodes b into v. Unknown object fields are errors, and so is
// anything but white space after the value.
func Decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ErrTrailing
	}
	return nil
}
