package wire

import "github.com/hubd/hubd/internal/model"

// Autolink is components/schemas/autolink.
type Autolink struct {
	ID             int64   `json:"id"`
	KeyPrefix      string  `json:"key_prefix"`
	URLTemplate    string  `json:"url_template"`
	IsAlphanumeric bool    `json:"is_alphanumeric"`
	UpdatedAt      *string `json:"updated_at"`
}

// ToAutolink converts an autolink reference.
func ToAutolink(a *model.Autolink) Autolink {
	t := Time(a.UpdatedAt)
	return Autolink{ID: a.ID, KeyPrefix: a.KeyPrefix, URLTemplate: a.URLTemplate, IsAlphanumeric: a.Alphanumeric, UpdatedAt: &t}
}
