package issues

import (
	"strconv"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/model"
)

// GitHub's limits on what people write, counted in characters (code
// points), as its 422 errors say. They also bound what every reader of an
// issue pays to render it.
const (
	maxTitle = 256
	maxBody  = 65536
)

// CheckIssueText refuses an issue title or body over GitHub's limits;
// nil means the field is not being set.
func CheckIssueText(title, body *string) error {
	if title != nil && utf8.RuneCountInString(*title) > maxTitle {
		return model.Custom("Issue", "title", "title is too long (maximum is "+strconv.Itoa(maxTitle)+" characters)")
	}
	if body != nil && utf8.RuneCountInString(*body) > maxBody {
		return model.Custom("Issue", "body", "body is too long (maximum is "+strconv.Itoa(maxBody)+" characters)")
	}
	return nil
}

// checkCommentBody refuses a comment body over GitHub's limit, with the
// error GitHub gives for comments (its own resource, field and code).
func checkCommentBody(body string) error {
	if utf8.RuneCountInString(body) > maxBody {
		return &model.ValidationError{Errors: []model.FieldError{{
			Resource: "IssueComment", Field: "data", Code: "unprocessable",
			Message: "Body is too long (maximum is " + strconv.Itoa(maxBody) + " characters)",
		}}}
	}
	return nil
}
