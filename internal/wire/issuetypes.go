package wire

import (
	"time"

	"github.com/hubd/hubd/internal/model"
)

// IssueType is GitHub's issue-type.
type IssueType struct {
	ID          int64     `json:"id"`
	NodeID      string    `json:"node_id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Color       *string   `json:"color"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	IsEnabled   bool      `json:"is_enabled"`
}

// ToIssueType converts an issue type.
func ToIssueType(t *model.IssueType) IssueType {
	return IssueType{ID: t.ID, NodeID: NodeID("IT", t.ID), Name: t.Name, Description: t.Description, Color: t.Color,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, IsEnabled: t.Enabled}
}
