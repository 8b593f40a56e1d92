package scim

import (
	"fmt"
	"net/http"
)

// Error is a SCIM error (RFC 7644 section 3.12): an HTTP status, the
// scimType of a 400 or 409, and a detail for people.
type Error struct {
	Status int
	Type   string
	Detail string
}

func (e *Error) Error() string { return fmt.Sprintf("scim %d %s: %s", e.Status, e.Type, e.Detail) }

// SCIM's scimType values (RFC 7644 table 9) hubd answers with.
const (
	InvalidFilter = "invalidFilter"
	InvalidSyntax = "invalidSyntax"
	InvalidPath   = "invalidPath"
	InvalidValue  = "invalidValue"
	NoTarget      = "noTarget"
	Mutability    = "mutability"
	Uniqueness    = "uniqueness"
)

func badRequest(typ, format string, args ...any) error {
	return &Error{Status: http.StatusBadRequest, Type: typ, Detail: fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) error {
	return &Error{Status: http.StatusConflict, Type: Uniqueness, Detail: fmt.Sprintf(format, args...)}
}

// ErrUserNotFound and ErrGroupNotFound are the 404s of unknown ids.
var (
	ErrUserNotFound  = &Error{Status: http.StatusNotFound, Detail: "Resource not found"}
	ErrGroupNotFound = &Error{Status: http.StatusNotFound, Detail: "Resource not found"}
)
