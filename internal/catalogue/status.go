package catalogue

import (
	"strconv"
	"strings"
)

// Status is how far hubd supports an operation. It is never typed by hand:
// Report derives it from the route table (and the never table below).
type Status string

// The four states. Their display labels and colours are fixed by the
// catalogue's specification.
const (
	Supported   Status = "supported"   // registered in the router
	Partial     Status = "partial"     // registered, with a limitation note beside its route
	Unsupported Status = "unsupported" // not registered yet: shown as Planned
	Never       Status = "never"       // a reason declared in code (never.go)
)

// Statuses lists the states in display order.
var Statuses = []Status{Supported, Partial, Unsupported, Never}

// Known reports whether s is one of the four states.
func (s Status) Known() bool {
	switch s {
	case Supported, Partial, Unsupported, Never:
		return true
	}
	return false
}

// Norm maps an unknown key to Unsupported, which is how it is displayed.
func (s Status) Norm() Status {
	if s.Known() {
		return s
	}
	return Unsupported
}

// Label is the display label: Supported, Partial, Planned or Never.
func (s Status) Label() string {
	switch s.Norm() {
	case Supported:
		return "Supported"
	case Partial:
		return "Partial"
	case Never:
		return "Never"
	}
	return "Planned"
}

// Colour is the badge colour: green, blue, yellow or red.
func (s Status) Colour() string {
	switch s.Norm() {
	case Supported:
		return "green"
	case Partial:
		return "blue"
	case Never:
		return "red"
	}
	return "yellow"
}

// Rank orders the states for regression checks: a lower rank is a
// regression. Never sits below Planned: giving up on an operation is a
// regression too.
func (s Status) Rank() int {
	switch s.Norm() {
	case Supported:
		return 3
	case Partial:
		return 2
	case Unsupported:
		return 1
	}
	return 0
}

// Badge is the text of a status badge: the label alone, or "<label>: <count>"
// when a count is given.
func Badge(s Status, count ...int) string {
	if len(count) == 0 {
		return s.Label()
	}
	return s.Label() + ": " + strconv.Itoa(count[0])
}

// ParseStatus accepts a key (supported, partial, unsupported, never) or a
// label (Planned ...), case-insensitively; ok is false for anything else.
func ParseStatus(v string) (Status, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "supported":
		return Supported, true
	case "partial":
		return Partial, true
	case "unsupported", "planned":
		return Unsupported, true
	case "never":
		return Never, true
	}
	return "", false
}

// Colours are the hex values of the badge colours (background, border,
// text), shared by the HTML page and its browser test. Token badges use them
// too: UAT blue, IAT purple.
var Colours = map[string]struct{ Bg, Border, Fg string }{
	"green":  {"#dafbe1", "#4ac26b", "#116329"},
	"blue":   {"#ddf4ff", "#54aeff", "#0550ae"},
	"yellow": {"#fff8c5", "#d4a72c", "#7d4e00"},
	"red":    {"#ffebe9", "#ff8182", "#a40e26"},
	"purple": {"#fbefff", "#c297ff", "#6639ba"},
}

// TokenColour is the badge colour of a token kind.
func TokenColour(kind string) string {
	if kind == "IAT" {
		return "purple"
	}
	return "blue"
}
