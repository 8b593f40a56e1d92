package advisories

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Render converts advisories (each of the repository repoOf names) to
// GitHub's shape, loading their accounts, teams and forks in three
// queries; viewerID reads the forks.
func Render(ctx context.Context, q store.Q, urls wire.URLs, list []*Advisory, viewerID int64, repoOf func(*model.Advisory) *model.Repo) ([]wire.RepositoryAdvisory, error) {
	var users, teams, forkIDs []int64
	for _, adv := range list {
		users = append(users, adv.AuthorID, adv.PublisherID)
		if adv.PrivateForkID != 0 {
			forkIDs = append(forkIDs, adv.PrivateForkID)
		}
		if p := adv.People; p != nil {
			users = append(users, p.Users...)
			teams = append(teams, p.Teams...)
			for _, c := range p.Credits {
				users = append(users, c.UserID)
			}
		}
	}
	refs := wire.AdvisoryRefs{Score: CVSS3Score, CWEName: CWEName, Forks: map[int64]*model.Repo{}}
	var err error
	if refs.Accounts, err = q.AccountsByID(ctx, users); err != nil {
		return nil, err
	}
	if refs.Teams, err = q.TeamsByID(ctx, teams); err != nil {
		return nil, err
	}
	if len(forkIDs) > 0 {
		views, err := q.ReposByID(ctx, forkIDs, viewerID)
		if err != nil {
			return nil, err
		}
		for id, v := range views {
			refs.Forks[id] = v.Repo
		}
	}
	out := make([]wire.RepositoryAdvisory, len(list))
	for i, adv := range list {
		out[i] = urls.ToRepositoryAdvisory(repoOf(adv.Advisory), adv.Advisory, adv.People, refs)
	}
	return out, nil
}

// ByID is an advisory with its people, whoever asks (webhooks).
func ByID(ctx context.Context, q store.Q, id int64) (*Advisory, error) {
	a, err := q.AdvisoryByID(ctx, id)
	if err != nil {
		return nil, err
	}
	people, err := q.AdvisoryPeopleOf(ctx, []int64{a.ID})
	if err != nil {
		return nil, err
	}
	return &Advisory{Advisory: a, People: people[a.ID]}, nil
}
