package repos

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	reposvc "github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// GitHub's topic rules.
var topicRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

const (
	maxTopics   = 20
	maxTopicLen = 50
	topicRule   = "Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens."
)

// GET /repos/{owner}/{repo}/topics
func (a *API) getTopics(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	// At most 20 topics live in the repository row; page through them here.
	p := rest.ParsePage(r)
	names := repo.Topics
	lo, hi := min(p.Offset(), len(names)), min(p.Offset()+p.Limit(), len(names))
	return rest.JSON(w, http.StatusOK, wire.Topics{Names: append([]string{}, names[lo:hi]...)})
}

type topicsBody struct {
	Names *[]string `json:"names"`
}

// PUT /repos/{owner}/{repo}/topics: names are lowercased and deduplicated;
// an empty list clears them.
func (a *API) replaceTopics(w http.ResponseWriter, r *http.Request) error {
	found, _, err := a.d.WritableRepo(r, authz.Maintain)
	if err != nil {
		return err
	}
	var in topicsBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Names == nil {
		return model.Unprocessable("Invalid request.\n\n\"names\" wasn't supplied.")
	}
	var names []string
	seen := map[string]bool{}
	var problems []string
	for _, n := range *in.Names {
		n = strings.ToLower(strings.TrimSpace(n))
		if len(n) > maxTopicLen || !topicRE.MatchString(n) {
			problems = append(problems, topicRule)
			break
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) > maxTopics {
		problems = append(problems, "A repository cannot have more than 20 topics.")
	}
	if len(problems) > 0 {
		// This operation's 422 is GitHub's simple form: errors are strings.
		return rest.JSON(w, http.StatusUnprocessableEntity, map[string]any{
			"message": "Validation Failed", "errors": problems,
			"documentation_url": rest.From(r).DocsURL, "status": "422",
		})
	}
	if names == nil {
		names = []string{}
	}
	ctx := r.Context()
	c := rest.Caller(r)
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		v, err := tx.RepoByID(ctx, found.ID, 0)
		if err != nil {
			return err
		}
		old := v.Repo.Topics
		v.Repo.Topics = names
		if err := tx.UpdateRepo(ctx, v.Repo, v.Repo.Name); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "repository.edited", c.UserID(), v.Repo.ID, reposvc.OrgID(v.Repo.Owner), map[string]any{
			"action": "edited", "repository_id": v.Repo.ID, "full_name": v.Repo.FullName(),
			"changes": map[string]any{"topics": map[string]any{"from": old}},
		})
	})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.Topics{Names: names})
}
