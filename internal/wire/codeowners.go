package wire

import "github.com/hubd/hubd/internal/codeowners"

// CodeownersErrors is components/schemas/codeowners-errors.
type CodeownersErrors struct {
	Errors []CodeownersError `json:"errors"`
}

// CodeownersError is one item of CodeownersErrors.errors.
type CodeownersError struct {
	Line       int     `json:"line"`
	Column     int     `json:"column"`
	Source     string  `json:"source"`
	Kind       string  `json:"kind"`
	Suggestion *string `json:"suggestion"`
	Message    string  `json:"message"`
	Path       string  `json:"path"`
}

// ToCodeownersErrors converts the problems of a CODEOWNERS file.
func ToCodeownersErrors(list []codeowners.Error) CodeownersErrors {
	out := CodeownersErrors{Errors: make([]CodeownersError, len(list))}
	for i, e := range list {
		var sug *string
		if e.Suggestion != "" {
			s := e.Suggestion
			sug = &s
		}
		out.Errors[i] = CodeownersError{Line: e.Line, Column: e.Column, Source: e.Source, Kind: e.Kind,
			Suggestion: sug, Message: e.Message(), Path: e.Path}
	}
	return out
}
