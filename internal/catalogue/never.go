package catalogue

// never lists the operations hubd will never serve, by operationId, each
// with the reason shown in the catalogue. Only operations that make no sense
// for hubd belong here; anything we merely have not built yet stays Planned.
// A test checks that every id exists in the ledger and is not registered.
var never = map[string]string{
	// The Management Console API of GitHub Enterprise Server manages the
	// appliance itself. hubd is one process configured by flags: it has no
	// cluster nodes, replicas, appliance license, config-apply runs or
	// administrative SSH shell.
	"enterprise-admin/get-cluster-status":                reasonAppliance,
	"enterprise-admin/get-replication-status":            reasonAppliance,
	"enterprise-admin/get-config-nodes":                  reasonAppliance,
	"enterprise-admin/get-checks-system-requirements":    reasonAppliance,
	"enterprise-admin/get-manage-config-apply-status":    reasonAppliance,
	"enterprise-admin/post-manage-run-config-apply":      reasonAppliance,
	"enterprise-admin/get-manage-config-apply-events":    reasonAppliance,
	"enterprise-admin/initialize-instance-configuration": reasonAppliance,
	"enterprise-admin/license-info":                      reasonLicense,
	"enterprise-admin/license-upload":                    reasonLicense,
	"enterprise-admin/license-check":                     reasonLicense,
	"enterprise-admin/get-manage-ssh":                    reasonSSH,
	"enterprise-admin/set-manage-ssh":                    reasonSSH,
	"enterprise-admin/delete-manage-ssh":                 reasonSSH,

	// The OAuth Authorizations API: GitHub's own description of GHES 3.19
	// marks every operation deprecated with a closing-down notice (removed
	// November 13, 2020); tokens come from the web and device flows
	// (internal/oauthweb) and apps manage them with /applications/{client_id}.
	"oauth-authorizations/list-authorizations":                                 reasonOAuthAuthorizations,
	"oauth-authorizations/create-authorization":                                reasonOAuthAuthorizations,
	"oauth-authorizations/get-or-create-authorization-for-app":                 reasonOAuthAuthorizations,
	"oauth-authorizations/get-or-create-authorization-for-app-and-fingerprint": reasonOAuthAuthorizations,
	"oauth-authorizations/get-authorization":                                   reasonOAuthAuthorizations,
	"oauth-authorizations/update-authorization":                                reasonOAuthAuthorizations,
	"oauth-authorizations/delete-authorization":                                reasonOAuthAuthorizations,
	"oauth-authorizations/list-grants":                                         reasonOAuthAuthorizations,
	"oauth-authorizations/get-grant":                                           reasonOAuthAuthorizations,
	"oauth-authorizations/delete-grant":                                        reasonOAuthAuthorizations,
}

const (
	reasonAppliance = "Manages the Enterprise Server appliance; hubd is a single process configured by flags, with no cluster, replicas or config-apply runs."
	reasonLicense   = "hubd has no appliance license to read, upload or check."
	reasonSSH       = "hubd has no administrative SSH shell to grant keys to."

	reasonOAuthAuthorizations = "Closed down by GitHub: the OAuth Authorizations API was removed on November 13, 2020 (GitHub's description of GHES 3.19 carries the closing-down notice); hubd issues tokens through the web and device flows at /login/oauth and /login/device, and apps check, reset and revoke them with /applications/{client_id}/token."
)

// NeverReason is the declared reason an operation will never be served.
func NeverReason(operationID string) (string, bool) {
	r, ok := never[operationID]
	return r, ok
}

// NeverIDs lists the operationIds of the never table.
func NeverIDs() []string {
	ids := make([]string, 0, len(never))
	for id := range never {
		ids = append(ids, id)
	}
	return ids
}
