package entgqlrt

import (
	"bytes"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"

	"github.com/chakshu-dev/chakshu/internal/strictjson"
)

// PageInfo of a Relay connection.
type PageInfo[T any] struct {
	HasNextPage     bool       `json:"hasNextPage"`
	HasPreviousPage bool       `json:"hasPreviousPage"`
	StartCursor     *Cursor[T] `json:"startCursor"`
	EndCursor       *Cursor[T] `json:"endCursor"`
}

// Cursor of a Relay edge: the node's id and, when the connection is ordered
// by a field other than the id, that field's value.
//
// On the wire a cursor is the unpadded base64url encoding of
//
//	{"i": <id as JSON>, "k": <kind>, "v": <value as text>}
//
// where kind says how to read the value back with its Go type: "i" int64,
// "u" uint64, "f" float64, "s" string, "b" bool, "t" time.Time (RFC 3339
// with nanoseconds and the offset), "x" bytes (base64). "k" and "v" are
// absent when the cursor has no value (a nil value or a nil pointer).
// Named types (enums) come back as their underlying kind, pointers as the
// value they point to, driver.Valuer values as what Value returns.
type Cursor[T any] struct {
	ID    T
	Value any
}

// maxCursorLen bounds the text UnmarshalGQL accepts. Cursors carry an id and
// one column value; nothing legitimate comes close.
const maxCursorLen = 16 << 10

// wireCursor is the JSON form of a Cursor.
type wireCursor struct {
	ID    json.RawMessage `json:"i"`
	Kind  string          `json:"k,omitempty"`
	Value *string         `json:"v,omitempty"`
}

var timeType = reflect.TypeFor[time.Time]()

// encodeValue gives the kind and text of an order value; ok is false when the
// value is absent (nil) or of a type a cursor cannot carry.
func encodeValue(v any) (kind, text string, ok bool) {
	if v == nil {
		return "", "", false
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return "", "", false
		}
		rv = rv.Elem()
	}
	if rv.Type() == timeType || rv.Type().ConvertibleTo(timeType) && rv.Kind() == reflect.Struct {
		t := rv.Convert(timeType).Interface().(time.Time)
		return "t", t.Format(time.RFC3339Nano), true
	}
	if rv.CanInterface() {
		if dv, isValuer := rv.Interface().(driver.Valuer); isValuer {
			x, err := dv.Value()
			if err != nil {
				return "", "", false
			}
			if _, same := x.(driver.Valuer); same {
				return "", "", false // a Valuer returning itself would loop
			}
			return encodeValue(x)
		}
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "i", strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "u", strconv.FormatUint(rv.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return "f", strconv.FormatFloat(rv.Float(), 'g', -1, 64), true
	case reflect.String:
		return "s", rv.String(), true
	case reflect.Bool:
		return "b", strconv.FormatBool(rv.Bool()), true
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return "x", base64.RawURLEncoding.EncodeToString(rv.Bytes()), true
		}
	}
	return "", "", false
}

// decodeValue is the inverse of encodeValue.
func decodeValue(kind, text string) (any, error) {
	switch kind {
	case "i":
		return strconv.ParseInt(text, 10, 64)
	case "u":
		return strconv.ParseUint(text, 10, 64)
	case "f":
		return strconv.ParseFloat(text, 64)
	case "s":
		return text, nil
	case "b":
		return strconv.ParseBool(text)
	case "t":
		return time.Parse(time.RFC3339Nano, text)
	case "x":
		return base64.RawURLEncoding.DecodeString(text)
	}
	return nil, fmt.Errorf("unknown value kind %q", kind)
}

// MarshalGQL implements graphql.Marshaler: a quoted string.
func (c Cursor[T]) MarshalGQL(w io.Writer) {
	s, err := c.encode()
	if err != nil {
		// Only an id type that JSON cannot encode gets here: a programming
		// error that the first test of any connection shows.
		panic(fmt.Sprintf("entgql: encode cursor: %v", err))
	}
	_, _ = io.WriteString(w, strconv.Quote(s))
}

func (c Cursor[T]) encode() (string, error) {
	id, err := json.Marshal(c.ID)
	if err != nil {
		return "", err
	}
	wc := wireCursor{ID: id}
	if kind, text, ok := encodeValue(c.Value); ok {
		wc.Kind, wc.Value = kind, &text
	}
	b, err := json.Marshal(wc)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// UnmarshalGQL implements graphql.Unmarshaler. Anything but a cursor this
// package wrote is an error.
func (c *Cursor[T]) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("cursor must be a string, not %T", v)
	}
	dc, err := decodeCursor[T](s)
	if err != nil {
		return fmt.Errorf("invalid cursor: %w", err)
	}
	*c = dc
	return nil
}

func decodeCursor[T any](s string) (Cursor[T], error) {
	var c Cursor[T]
	if len(s) > maxCursorLen {
		return c, errors.New("too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, errors.New("not base64url")
	}
	var wc wireCursor
	if err := strictjson.Decode(raw, &wc); errors.Is(err, strictjson.ErrTrailing) {
		return c, errors.New("trailing data")
	} else if err != nil {
		return c, errors.New("malformed")
	}
	if len(wc.ID) == 0 || bytes.Equal(wc.ID, []byte("null")) {
		return c, errors.New("no id")
	}
	if err := json.Unmarshal(wc.ID, &c.ID); err != nil {
		return c, errors.New("bad id")
	}
	switch {
	case wc.Kind == "" && wc.Value == nil:
	case wc.Kind == "" || wc.Value == nil:
		return c, errors.New("value without kind")
	default:
		val, err := decodeValue(wc.Kind, *wc.Value)
		if err != nil {
			return c, errors.New("bad value")
		}
		c.Value = val
	}
	return c, nil
}
