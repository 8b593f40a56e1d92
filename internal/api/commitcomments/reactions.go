package commitcomments

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/commitcomments"
	"github.com/hubd/hubd/internal/model"
)

// reactions are the reaction handlers of this package's comments.
func (a *API) reactions() api.Reactions[commitcomments.Access] {
	return api.Reactions[commitcomments.Access]{D: a.d, Svc: a.svc, Open: a.openComment,
		Repo: func(x commitcomments.Access) *model.Repo { return x.Repo }}
}
