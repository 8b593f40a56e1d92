package authz

import "slices"

// EnterpriseRolePermissions are the permissions of GitHub's predefined
// enterprise roles, by role id (internal/enterprise lists the roles).
var EnterpriseRolePermissions = map[int64][]string{
	1: {"manage_enterprise_apps"},
	2: {"read_enterprise_security", "write_enterprise_security", "read_enterprise_repository_contents"},
}

// Enterprise role permissions checks ask for.
const (
	// ReadEnterpriseSecurity reads the security results and settings of
	// every organization of the enterprise (security_manager).
	ReadEnterpriseSecurity = "read_enterprise_security"
	// WriteEnterpriseSecurity manages them.
	WriteEnterpriseSecurity = "write_enterprise_security"
)

// EnterpriseRolesGrant reports whether one of the enterprise roles held
// (their ids, assigned to the user or to an enterprise team they are in)
// carries permission perm.
func EnterpriseRolesGrant(held []int64, perm string) bool {
	for _, id := range held {
		if slices.Contains(EnterpriseRolePermissions[id], perm) {
			return true
		}
	}
	return false
}
