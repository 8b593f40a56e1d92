package wire

import "github.com/hubd/hubd/internal/model"

// Status is components/schemas/status.
type Status struct {
	URL         string      `json:"url"`
	AvatarURL   *string     `json:"avatar_url"`
	ID          int64       `json:"id"`
	NodeID      string      `json:"node_id"`
	State       string      `json:"state"`
	Description *string     `json:"description"`
	TargetURL   *string     `json:"target_url"`
	Context     string      `json:"context"`
	CreatedAt   string      `json:"created_at"`
	UpdatedAt   string      `json:"updated_at"`
	Creator     *SimpleUser `json:"creator"`
}

// SimpleCommitStatus is components/schemas/simple-commit-status, an item of
// a combined status.
type SimpleCommitStatus struct {
	URL         string  `json:"url"`
	AvatarURL   *string `json:"avatar_url"`
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	State       string  `json:"state"`
	Description *string `json:"description"`
	TargetURL   *string `json:"target_url"`
	Context     string  `json:"context"`
	Required    *bool   `json:"required"` // no required status checks yet: null
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
}

// CombinedCommitStatus is components/schemas/combined-commit-status.
type CombinedCommitStatus struct {
	State      string               `json:"state"`
	Statuses   []SimpleCommitStatus `json:"statuses"`
	SHA        string               `json:"sha"`
	TotalCount int                  `json:"total_count"`
	Repository MinimalRepository    `json:"repository"`
	CommitURL  string               `json:"commit_url"`
	URL        string               `json:"url"`
}

// StatusURL is the statuses resource of a commit, the url of each status.
func (u URLs) StatusURL(r *model.Repo, sha string) string {
	return u.RepoAPI(r.Owner.Login, r.Name) + "/statuses/" + sha
}

func (u URLs) statusAvatar(s *model.CommitStatus) *string {
	if s.Creator == nil {
		return nil
	}
	a := u.AvatarURL(s.Creator)
	return &a
}

// ToStatus converts a status with its creator.
func (u URLs) ToStatus(r *model.Repo, s *model.CommitStatus) Status {
	out := Status{URL: u.StatusURL(r, s.SHA), AvatarURL: u.statusAvatar(s), ID: s.ID, NodeID: NodeID("SC", s.ID),
		State: string(s.State), Description: s.Description, TargetURL: s.TargetURL, Context: s.Context,
		CreatedAt: Time(s.CreatedAt), UpdatedAt: Time(s.UpdatedAt)}
	if s.Creator != nil {
		c := u.ToSimpleUser(s.Creator)
		out.Creator = &c
	}
	return out
}

// ToStatuses converts a list of statuses.
func (u URLs) ToStatuses(r *model.Repo, list []*model.CommitStatus) []Status {
	out := make([]Status, 0, len(list))
	for _, s := range list {
		out = append(out, u.ToStatus(r, s))
	}
	return out
}

// ToCombinedStatus converts a commit's combined status: state over every
// context, and a page of the newest status per context.
func (u URLs) ToCombinedStatus(r *model.Repo, state model.StatusState, sha string, list []*model.CommitStatus, total int) CombinedCommitStatus {
	items := make([]SimpleCommitStatus, 0, len(list))
	for _, s := range list {
		items = append(items, SimpleCommitStatus{URL: u.StatusURL(r, s.SHA), AvatarURL: u.statusAvatar(s), ID: s.ID,
			NodeID: NodeID("SC", s.ID), State: string(s.State), Description: s.Description, TargetURL: s.TargetURL,
			Context: s.Context, CreatedAt: Time(s.CreatedAt), UpdatedAt: Time(s.UpdatedAt)})
	}
	return CombinedCommitStatus{State: string(state), Statuses: items, SHA: sha, TotalCount: total,
		Repository: u.ToBareRepository(r), CommitURL: u.CommitAPIURL(r, sha),
		URL: u.RepoAPI(r.Owner.Login, r.Name) + "/commits/" + sha + "/status"}
}
