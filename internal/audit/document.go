package audit

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Document is components/schemas/audit-log-event: the entry's fields as
// GitHub names them, its details under data (and the few the schema names
// at the top level); business is the enterprise's slug ("" in an
// organization's log).
func Document(e model.AuditEntry, business string) map[string]any {
	ms := e.CreatedAt.UnixMilli()
	m := map[string]any{
		"@timestamp":     ms,
		"created_at":     ms,
		"_document_id":   base64.RawURLEncoding.EncodeToString([]byte("audit-" + strconv.FormatInt(e.ID, 10))),
		"action":         e.Action,
		"operation_type": operationType(e.Action),
	}
	if e.Actor != "" || e.ActorID != 0 {
		m["actor"], m["actor_id"] = e.Actor, e.ActorID
	}
	if e.User != "" {
		m["user"], m["user_id"] = e.User, e.UserID
	}
	if e.Org != "" {
		m["org"], m["org_id"] = e.Org, e.OrgID
	}
	if e.Repo != "" {
		m["repo"], m["repository"] = e.Repo, e.Repo
	}
	if business != "" {
		m["business"] = business
	}
	data := map[string]any{}
	if err := json.Unmarshal(e.Data, &data); err == nil {
		if v, ok := data["hook_id"].(float64); ok {
			m["hook_id"] = int64(v)
		}
		for _, k := range []string{"visibility", "previous_visibility", "name"} {
			if v, ok := data[k].(string); ok {
				m[k] = v
			}
		}
		if v, ok := data["active"].(bool); ok {
			m["active"] = v
		}
		m["data"] = data
	}
	return m
}

// operationType is GitHub's operation_type of an action.
func operationType(action string) string {
	_, op, _ := strings.Cut(action, ".")
	switch {
	case action == "user.login":
		return "authentication"
	case action == "repo.transfer":
		return "transfer"
	case action == "repo.access":
		return "access"
	case op == "create" || op == "provision" || strings.HasPrefix(op, "create_") || strings.HasPrefix(op, "add_") || op == "invite_member" || op == "push":
		return "create"
	case op == "destroy" || op == "delete" || op == "deprovision" || strings.HasPrefix(op, "remove_") || op == "access_revoked":
		return "remove"
	}
	return "modify"
}
