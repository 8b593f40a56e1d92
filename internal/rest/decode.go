package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/reqschema"
)

// MaxBody is the default limit on request bodies; the server may lower or
// raise it.
var MaxBody int64 = 25 << 20

// Decode reads a JSON object body into v. Requests to operations of
// GitHub's description arrive here already validated against the
// operation's schema (server.checkBody); Decode is the typed decoder, and
// answers what the schema did not catch like GitHub:
// 400 "Problems parsing JSON" for malformed JSON, 400 "Body should be a JSON
// object" for other JSON values, 422 "Invalid request" for a field of the
// wrong type, 413 for an oversized body. Unknown fields are ignored. An empty
// body decodes as {}.
func Decode(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "Payload Too Large"}
		}
		return model.BadRequest("Problems parsing JSON")
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		if !json.Valid(data) {
			return model.BadRequest("Problems parsing JSON")
		}
		return model.BadRequest("Body should be a JSON object")
	}
	if obj == nil { // the literal null
		return model.BadRequest("Body should be a JSON object")
	}
	if err := refuseNUL(data, obj); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		// The server has already checked the body against the operation's
		// schema (reqschema) where the description has one; what is left
		// are hubd's extension routes and the fields a handler's Go types
		// are stricter about than the schema.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return typeError(obj, te.Field, jsonKind(te.Type.Kind().String()))
		}
		var fe *FieldTypeError
		if errors.As(err, &fe) {
			return typeError(obj, fe.Field, fe.Want)
		}
		return model.BadRequest("Problems parsing JSON")
	}
	return nil
}

// typeError words a wrong type as GitHub does: the schema step holding the
// value ('properties/name', or 'items' for an element of an array) and the
// value as Ruby prints it.
func typeError(obj map[string]json.RawMessage, field, want string) error {
	path := strings.Split(field, ".")
	raw := obj[path[0]]
	for _, name := range path[1:] {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) != nil {
			break
		}
		raw = inner[name]
	}
	frag := "properties/" + path[len(path)-1]
	var elems []json.RawMessage
	if want != "an array" && json.Unmarshal(raw, &elems) == nil {
		// encoding/json names the slice, not the element, that failed.
		for _, e := range elems {
			if !isKind(e, want) {
				frag, raw = "items", e
				break
			}
		}
	}
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	return model.Unprocessable(fmt.Sprintf("Invalid request.\n\nFor '%s', %s is not %s.", frag, reqschema.Inspect(raw), want))
}

// isKind reports whether a raw JSON value is of the kind named in a
// message ("a string", "an integer", ...).
func isKind(raw json.RawMessage, want string) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; want {
	case "a string":
		return c == '"'
	case "a boolean":
		return c == 't' || c == 'f'
	case "an object":
		return c == '{'
	case "an integer":
		return (c == '-' || c >= '0' && c <= '9') && !bytes.ContainsAny(raw, ".eE")
	case "a number":
		return c == '-' || c >= '0' && c <= '9'
	}
	return true
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "float64", "float32":
		return "a number"
	}
	return "of the expected type"
}

// FieldTypeError lets custom UnmarshalJSON methods report a wrong type.
type FieldTypeError struct{ Field, Want string }

func (e *FieldTypeError) Error() string { return e.Field + " is not " + e.Want }

// Opt is a field of a PATCH body: absent, null, or a value.
type Opt[T any] struct {
	Set   bool // present in the body
	Null  bool // present and null
	Value T
}

// UnmarshalJSON records presence; encoding/json calls it for null too.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Get returns the value and whether a non-null value was given.
func (o Opt[T]) Get() (T, bool) { return o.Value, o.Set && !o.Null }

// refuseNUL answers 422 for a string holding U+0000 anywhere in the body.
// GitHub's own storage keeps such bytes, but PostgreSQL's text cannot, so
// hubd refuses them the same way on both databases rather than store them
// on one and fail on the other. The cheap byte search keeps the walk off
// ordinary bodies.
func refuseNUL(data []byte, obj map[string]json.RawMessage) error {
	if !bytes.Contains(data, []byte(`\u0000`)) {
		return nil
	}
	for name, raw := range obj {
		var v any
		if json.Unmarshal(raw, &v) == nil && (hasNUL(v) || strings.IndexByte(name, 0) >= 0) {
			return model.Unprocessable("Invalid request.\n\nFor 'properties/" + strings.ReplaceAll(name, "\x00", "") + "', null bytes are not allowed in strings.")
		}
	}
	return nil
}

func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case []any:
		for _, x := range v {
			if hasNUL(x) {
				return true
			}
		}
	case map[string]any:
		for k, x := range v {
			if strings.IndexByte(k, 0) >= 0 || hasNUL(x) {
				return true
			}
		}
	}
	return false
}
