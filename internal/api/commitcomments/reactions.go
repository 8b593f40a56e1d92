package commitcomments

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/commitcomments"
)

// reactions are the reaction handlers of this package's comments.
func (a *API) reactions() api.Reactions[commitcomments.Access] {
	return api.Reactions[commitcomments.Access]{D: a.d, Svc: a.svc, Open: a.openComment}
}
