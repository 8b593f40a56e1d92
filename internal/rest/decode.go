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
)

// MaxBody is the default limit on request bodies; the server may lower or
// raise it.
var MaxBody int64 = 25 << 20

// Decode reads a JSON object body into v. It answers like GitHub:
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
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			raw := obj[strings.Split(field, ".")[0]]
			return model.Unprocessable(fmt.Sprintf("Invalid request.\n\nFor 'properties/%s', %s is not %s.", field, shortJSON(raw), jsonKind(te.Type.Kind().String())))
		}
		var fe *FieldTypeError
		if errors.As(err, &fe) {
			return model.Unprocessable(fmt.Sprintf("Invalid request.\n\nFor 'properties/%s', %s is not %s.", fe.Field, shortJSON(obj[fe.Field]), fe.Want))
		}
		return model.BadRequest("Problems parsing JSON")
	}
	return nil
}

func shortJSON(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	if s == "" {
		s = "null"
	}
	return s
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
