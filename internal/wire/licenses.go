package wire

import "encoding/base64"

// License is components/schemas/license: one license of the catalogue with
// its text and its choosealicense.com vocabulary.
type License struct {
	Key            string   `json:"key"`
	Name           string   `json:"name"`
	SpdxID         *string  `json:"spdx_id"`
	URL            *string  `json:"url"`
	NodeID         string   `json:"node_id"`
	HTMLURL        string   `json:"html_url"`
	Description    string   `json:"description"`
	Implementation string   `json:"implementation"`
	Permissions    []string `json:"permissions"`
	Conditions     []string `json:"conditions"`
	Limitations    []string `json:"limitations"`
	Body           string   `json:"body"`
	Featured       bool     `json:"featured"`
}

// LicenseContent is components/schemas/license-content: a repository's
// license file (base64, as the contents API sends files) and the license
// detected in it.
type LicenseContent struct {
	ContentItem
	Content  string         `json:"content"`
	Encoding string         `json:"encoding"`
	License  *LicenseSimple `json:"license"`
}

// GitignoreTemplate is components/schemas/gitignore-template.
type GitignoreTemplate struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// LicenseNodeID is GitHub's (legacy) global id of a license: the base64 of
// "07:License" and its key ("0" for the unknown license).
func LicenseNodeID(key string) string {
	return base64.StdEncoding.EncodeToString([]byte("07:License" + key))
}

// LicenseURL is the API URL of a license.
func (u URLs) LicenseURL(key string) string { return u.API + "/licenses/" + key }

// OtherLicense is what GitHub reports for a license file whose text matches
// no license it knows.
func OtherLicense() *LicenseSimple {
	spdx := "NOASSERTION"
	return &LicenseSimple{Key: "other", Name: "Other", SpdxID: &spdx, NodeID: LicenseNodeID("0")}
}
