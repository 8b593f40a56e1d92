package pullreviews

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
)

// reactions are the reaction handlers of this package's comments.
func (a *API) reactions() api.Reactions[pullreviews.Access] {
	return api.Reactions[pullreviews.Access]{D: a.d, Svc: a.svc, Open: a.openComment,
		Repo: func(x pullreviews.Access) *model.Repo { return x.Repo }}
}
