package authz

// The fine-grained permissions of self-hosted runners and runner groups
// and hosted runners (internal/api/runners): an organization's (and the enterprise's, which
// only site administrators' classic tokens reach) need
// organization_self_hosted_runners; a repository's need administration.
var runnerRules = map[string]string{
	"actions/self-hosted-runners":                                       "organization_self_hosted_runners",
	"actions/self-hosted-runner-groups":                                 "organization_self_hosted_runners",
	"actions/delete-self-hosted-runner-from-repo":                       "administration",
	"actions/list-self-hosted-runners-for-repo":                         "administration",
	"actions/list-runner-applications-for-repo":                         "administration",
	"actions/generate-runner-jitconfig-for-repo":                        "administration",
	"actions/create-registration-token-for-repo":                        "administration",
	"actions/create-remove-token-for-repo":                              "administration",
	"actions/get-runner-version-deprecation-for-repo":                   "administration",
	"actions/get-self-hosted-runner-for-repo":                           "administration",
	"actions/list-labels-for-self-hosted-runner-for-repo":               "administration",
	"actions/add-custom-labels-to-self-hosted-runner-for-repo":          "administration",
	"actions/set-custom-labels-for-self-hosted-runner-for-repo":         "administration",
	"actions/remove-all-custom-labels-from-self-hosted-runner-for-repo": "administration",
	"actions/remove-custom-label-from-self-hosted-runner-for-repo":      "administration",
}

func init() {
	for k, v := range runnerRules {
		permissionRules[k] = v
	}
}
