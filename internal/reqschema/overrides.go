package reqschema

import (
	"fmt"
	"strings"
)

// Fix is what an override does to a subschema.
type Fix int

const (
	// Skip turns validation of the operation off.
	Skip Fix = iota
	// Any replaces the subschema with {} (anything goes).
	Any
	// Nullable lets the subschema also take null.
	Nullable
	// Optional drops the subschema's required properties (the handler
	// checks which ones a request needs).
	Optional
)

// overrides is the one list of places where GitHub's description is
// stricter than GitHub itself or than the clients hubd must serve. Each
// entry names the operation, the subschema (a path of fragments from the
// body's root, "" for the whole body) and why. Nothing else is loosened.
var overrides = []struct {
	OperationID string
	At          string
	Fix         Fix
	Reason      string
}{
	{"issues/add-labels", "", Any,
		"The ghec description allows only {\"labels\": [...]}, but GitHub also takes a bare array of names or of {name} objects and a " +
			"single name (its own docs say so, and go-github's AddLabelsToIssue sends a bare array). The handler parses all forms."},
	{"issues/set-labels", "", Any,
		"Same as add-labels: a bare array or a single name is accepted by GitHub and sent by go-github's ReplaceLabelsForIssue."},
	{"issues/update-label", "properties/description", Nullable,
		"null clears a label's description (the description's update form sends it); the schema says string only."},
	{"issues/update-milestone", "properties/description", Nullable,
		"null clears a milestone's description; the schema says string only."},
	{"issues/update-milestone", "properties/due_on", Nullable,
		"null removes a milestone's due date (the only way to remove it); the schema says string only."},
	{"teams/update-in-org", "properties/name", Nullable,
		"go-github's UpdateTeamRequest always sends \"name\" (null when unset); a null name is no change; the schema says string only."},
	{"teams/update-legacy", "properties/name", Nullable, "Same as teams/update-in-org."},
	{"orgs/update", "properties/name", Nullable,
		"null clears an organization's display name; the schema says string only."},
	{"orgs/update", "properties/secret_scanning_push_protection_custom_link", Nullable,
		"null clears the custom link; the schema says string only."},
	{"repos/update-branch-protection", "properties/required_status_checks", Optional,
		"go-github sends required_status_checks with checks and without contexts (GitHub takes either); the description requires " +
			"strict and contexts. The handler takes strict as false when absent."},
	{"gists/update", "properties/files/additionalProperties", Nullable,
		"A file set to null deletes it (the description's own deleteFile example and go-github's UpdateGistRequest send that); " +
			"the schema says object only."},
	{"pulls/create-review-comment", "", Optional,
		"A reply (in_reply_to) needs only body: GitHub accepts {body, in_reply_to} and go-github's CreateCommentInReplyTo sends " +
			"exactly that, but the description requires commit_id and path always. The service asks for path when there is no in_reply_to."},
	{"repos/create-or-update-environment", "", Any,
		"go-github's CreateUpdateEnvironment always sends can_admins_bypass (a field GitHub still takes) and wait_timer, reviewers and " +
			"deployment_branch_policy as null when unset; the description forbids other keys and nulls. The handler checks the fields' types and values."},
	// Push restriction lists: go-github's Add/Replace/Remove{User,Team,App}Restrictions
	// send a bare array of names, which GitHub takes (the ghec description
	// allows only the object). The handler parses both forms.
	{"repos/add-user-access-restrictions", "", Any, "A bare array of logins, as go-github sends."},
	{"repos/set-user-access-restrictions", "", Any, "A bare array of logins, as go-github sends."},
	{"repos/remove-user-access-restrictions", "", Any, "A bare array of logins, as go-github sends."},
	{"repos/add-team-access-restrictions", "", Any, "A bare array of team slugs, as go-github sends."},
	{"repos/set-team-access-restrictions", "", Any, "A bare array of team slugs, as go-github sends."},
	{"repos/remove-team-access-restrictions", "", Any, "A bare array of team slugs, as go-github sends."},
	{"repos/add-app-access-restrictions", "", Any, "A bare array of app slugs, as go-github sends."},
	{"repos/set-app-access-restrictions", "", Any, "A bare array of app slugs, as go-github sends."},
	{"repos/remove-app-access-restrictions", "", Any, "A bare array of app slugs, as go-github sends."},
	// SCIM (internal/api/scim): identity providers send what the description
	// forbids (Entra ID's "Replace"/"Add" operation names and "False" as a
	// string, PATCH values that are objects, arrays and booleans where it
	// says string), and a bad body must get SCIM's error JSON, not a 422.
	// The SCIM service validates every attribute.
	{"enterprise-admin/provision-enterprise-user", "", Skip, "SCIM: see above."},
	{"enterprise-admin/set-information-for-provisioned-enterprise-user", "", Skip, "SCIM: see above."},
	{"enterprise-admin/update-attribute-for-enterprise-user", "", Skip, "SCIM: see above."},
	{"enterprise-admin/provision-enterprise-group", "", Skip, "SCIM: see above."},
	{"enterprise-admin/set-information-for-provisioned-enterprise-group", "", Skip, "SCIM: see above."},
	{"enterprise-admin/update-attribute-for-enterprise-group", "", Skip, "SCIM: see above."},
}

func skipped(operationID string) bool {
	for _, o := range overrides {
		if o.OperationID == operationID && o.Fix == Skip {
			return true
		}
	}
	return false
}

func applyOverrides(operationID string, root *Schema) error {
	for _, o := range overrides {
		if o.OperationID != operationID || o.Fix == Skip {
			continue
		}
		var segs []string
		if o.At != "" {
			segs = strings.Split(o.At, "/")
		}
		sub := root.walk(segs)
		if sub == nil {
			return fmt.Errorf("reqschema: override %s %q: no such subschema", operationID, o.At)
		}
		switch o.Fix {
		case Any:
			*sub = Schema{frag: sub.frag, any: true, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
		case Optional:
			sub.required = nil
		case Nullable:
			if !sub.nullable {
				sub.nullable = true
				if len(sub.types) > 0 {
					sub.types = append(sub.types, "null")
				}
			}
		}
	}
	return nil
}
