package model

import "time"

// The domain types of pull request stacks: an ordered list of pull requests
// of one repository, bottom (position 1) to top, each based on the head
// branch of the one below it.

// PullStack is a stack with its members, bottom first.
type PullStack struct {
	ID, RepoID, Number int64
	// Version moves on every change; writers compare-and-swap it so two
	// concurrent changes cannot both apply.
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
	Members   []*PullStackMember
}

// Open reports whether any member is still open (GitHub's "open").
func (s *PullStack) Open() bool {
	for _, m := range s.Members {
		if m.State == "open" {
			return true
		}
	}
	return false
}

// Bottom is the lowest member, nil for an empty stack.
func (s *PullStack) Bottom() *PullStackMember {
	if len(s.Members) == 0 {
		return nil
	}
	return s.Members[0]
}

// PullStackMember is one pull request of a stack with the pull request
// fields a stack shows.
type PullStackMember struct {
	IssueID  int64
	Position int // 1-based, 1 is the bottom
	Number   int64
	State    string // open, closed
	Draft    bool
	MergedAt *time.Time
	HeadRef  string
	HeadSHA  string
	BaseRef  string
	BaseSHA  string

	Pull *Pull // the whole pull request, loaded for full responses
}

// PullStackRef is a pull request's membership of a stack, as the "stack"
// key of a pull request object shows it.
type PullStackRef struct {
	ID, Number int64
	Position   int // of the pull request, 1 is the bottom
	Size       int // pull requests in the stack
	BaseRef    string
	BaseSHA    string // the bottom pull request's base
}
