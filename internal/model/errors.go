package model

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned when a row does not exist (or may not be seen).
var ErrNotFound = errors.New("not found")

// FieldError is one entry of GitHub's 422 errors[] array.
type FieldError struct {
	Resource string
	Field    string
	Code     string // missing_field, invalid, already_exists, missing, custom
	Message  string // only with code custom (and a few others)
	Value    any    // optional offending value
}

// ValidationError is a 422 "Validation Failed" with field errors.
type ValidationError struct {
	Message string // defaults to "Validation Failed"
	Errors  []FieldError
}

func (e *ValidationError) Error() string {
	if len(e.Errors) == 0 {
		return "validation failed"
	}
	f := e.Errors[0]
	return fmt.Sprintf("validation failed: %s.%s %s", f.Resource, f.Field, f.Code)
}

// Invalid builds a one-field validation error.
func Invalid(resource, field, code string) *ValidationError {
	return &ValidationError{Errors: []FieldError{{Resource: resource, Field: field, Code: code}}}
}

// Custom builds a one-field validation error with code custom and a message.
func Custom(resource, field, msg string) *ValidationError {
	return &ValidationError{Errors: []FieldError{{Resource: resource, Field: field, Code: "custom", Message: msg}}}
}

// HTTPError carries a status and message chosen by the caller; the rest
// package renders it as GitHub's error JSON.
type HTTPError struct {
	Status  int
	Message string
	// Reasons are errors[] as plain strings (GitHub's "Validation Error
	// Simple" shape), when set.
	Reasons []string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Message) }

// UnprocessableReasons is GitHub's 422 "Unprocessable Entity" with its
// reasons as strings in errors[] (reviews answer so).
func UnprocessableReasons(reasons ...string) error {
	return &HTTPError{Status: 422, Message: "Unprocessable Entity", Reasons: reasons}
}

// Forbidden is a 403 with GitHub's message.
func Forbidden(msg string) error { return &HTTPError{Status: 403, Message: msg} }

// Conflict is a 409.
func Conflict(msg string) error { return &HTTPError{Status: 409, Message: msg} }

// Gone is a 410.
func Gone(msg string) error { return &HTTPError{Status: 410, Message: msg} }

// BadRequest is a 400.
func BadRequest(msg string) error { return &HTTPError{Status: 400, Message: msg} }

// Unprocessable is a 422 with a message and no field errors.
func Unprocessable(msg string) error { return &HTTPError{Status: 422, Message: msg} }

// Moved says a resource now lives elsewhere (renamed repositories).
type Moved struct {
	Location string
	Status   int // 301 or 307
}

func (e *Moved) Error() string { return "moved to " + e.Location }

// ErrArchived is GitHub's 403 for a change to an archived repository.
var ErrArchived = Forbidden("Repository was archived so is read-only.")
