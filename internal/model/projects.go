package model

import "time"

// Project is a Projects (v2) project of a user or an organization.
type Project struct {
	ID, OwnerID, Number int64
	CreatorID           int64
	Title               string
	ShortDescription    string
	Readme              string
	Public              bool
	ClosedAt            *time.Time
	// BaseRole is what organization members may do: none, read, write or
	// admin.
	BaseRole             string
	CreatedAt, UpdatedAt time.Time
}

// ProjectField is a field of a project: a built-in one (title, assignees,
// labels, linked_pull_requests, milestone, repository, reviewers) or a
// custom one (text, number, date, single_select, iteration; Status is a
// single select created with the project).
type ProjectField struct {
	ID, ProjectID        int64
	Name, DataType       string
	Position             int64
	Options              []ProjectOption
	Iteration            *ProjectIterations
	CreatedAt, UpdatedAt time.Time
}

// ProjectOption is an option of a single select field.
type ProjectOption struct{ ID, Name, Color, Description string }

// ProjectIterations is the configuration of an iteration field.
type ProjectIterations struct {
	StartDay   int // 1 Monday .. 7 Sunday
	Duration   int // days
	Iterations []ProjectIteration
}

// ProjectIteration is one iteration.
type ProjectIteration struct {
	ID, Title, StartDate string // StartDate YYYY-MM-DD
	Duration             int
}

// ProjectItem is an item of a project: an issue, a pull request or a
// draft issue.
type ProjectItem struct {
	ID, ProjectID        int64
	ContentType          string // Issue, PullRequest, DraftIssue
	IssueID              int64  // issues and pull requests
	DraftTitle           string
	DraftBody            string
	CreatorID            int64
	ArchivedAt           *time.Time
	CreatedAt, UpdatedAt time.Time
}

// ProjectValue is the value of a custom field of an item: Text holds
// text, dates (YYYY-MM-DD), option and iteration ids; Number numbers.
type ProjectValue struct {
	ItemID, FieldID int64
	Text            string
	Number          *float64
	UpdatedAt       time.Time
}

// ProjectView is a saved view of a project.
type ProjectView struct {
	ID, ProjectID, Number int64
	Name, Layout          string // table, board, roadmap
	Filter                *string
	VisibleFields         []int64
	SortBy                [][2]any // [field id, "asc"|"desc"]
	GroupBy               []int64
	VerticalGroupBy       []int64
	CreatorID             int64
	CreatedAt, UpdatedAt  time.Time
}
