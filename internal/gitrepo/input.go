package gitrepo

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/gitpath"
	"github.com/hubd/hubd/internal/model"
)

// InputError is input git would refuse or misread — an argument with a NUL
// byte, a name that would be taken for an option, a tree entry name git
// forbids — caught before git runs. It is the client's fault: it unwraps to
// a 422 (handlers that know GitHub's wording for the case answer first).
type InputError struct {
	What string // what was refused, for the log
	Err  error  // the rule it broke
}

func (e *InputError) Error() string {
	return "gitrepo: invalid input: " + e.What + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() []error {
	return []error{e.Err, &model.HTTPError{Status: http.StatusUnprocessableEntity, Message: "Invalid request.\n\n" + e.publicMessage()}}
}

func (e *InputError) publicMessage() string {
	switch e.Err {
	case errNUL:
		return "A parameter contains a NUL byte."
	case errOption:
		return "A parameter may not start with a hyphen."
	case errNotRef, errNotOID:
		return "Invalid reference or object id."
	}
	return "The path contains a malformed path component."
}

var (
	errNUL    = fmt.Errorf("argument contains a NUL byte")
	errOption = fmt.Errorf("argument would be read as an option")
	errNotRef = fmt.Errorf("not a full ref name")
	errNotOID = fmt.Errorf("not an object id")
)

// checkArgs is the one check at the exec boundary: exec refuses arguments
// with NUL bytes (a 500 "invalid argument" otherwise), so they are the
// caller's error.
func checkArgs(args []string) error {
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return &InputError{What: fmt.Sprintf("%q", a), Err: errNUL}
		}
	}
	return nil
}

// Operand checks a value derived from user input that is passed to git as
// a positional argument before any "--": it must not start with "-", which
// git would read as an option (option injection).
func Operand(s string) error {
	if strings.HasPrefix(s, "-") {
		return &InputError{What: fmt.Sprintf("%q", s), Err: errOption}
	}
	if strings.IndexByte(s, 0) >= 0 {
		return &InputError{What: fmt.Sprintf("%q", s), Err: errNUL}
	}
	return nil
}

// checkEntryName applies git's tree entry rules (fsck's hasDotgit and
// friends) to a name about to be written into a tree.
func checkEntryName(e TreeEntry) error {
	if err := gitpath.VerifyName(e.Name, e.Mode == "120000"); err != nil {
		return &InputError{What: fmt.Sprintf("tree entry %q", e.Name), Err: err}
	}
	return nil
}
