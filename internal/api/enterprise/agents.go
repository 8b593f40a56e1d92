package enterprise

import (
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

const noteAgents = "The source is an organization's .github-private repository; agents are its agents/*.md files on " +
	"the default branch. create_ruleset (true by default) is refused with 422: hubd's rulesets cannot protect file " +
	"paths, so clients send create_ruleset false. There is no Copilot here: the agents are listed, not run. " + entApp

func (a *API) agentRoutes() []rest.Route {
	s := []string{"admin:enterprise"}
	b := "/enterprises/{enterprise}/copilot/custom-agents"
	return []rest.Route{
		{Method: "GET", Pattern: b, OperationID: "copilot/get-copilot-custom-agents-for-enterprise", Handler: a.agents, Scopes: s, Note: noteAgents},
		{Method: "GET", Pattern: b + "/source", OperationID: "copilot/get-copilot-custom-agents-source-for-enterprise", Handler: a.agentsSource, Scopes: s, Note: noteAgents},
		{Method: "PUT", Pattern: b + "/source", OperationID: "copilot/set-copilot-custom-agents-source-for-enterprise", Handler: a.setAgentsSource, Scopes: s, Note: noteAgents},
		{Method: "DELETE", Pattern: b + "/source", OperationID: "copilot/delete-copilot-custom-agents-source-for-enterprise", Handler: a.removeAgentsSource, Scopes: s, Note: noteAgents},
	}
}

func (a *API) agentsOwner(r *http.Request) (int64, error) {
	c, err := a.d.RequireEnterpriseOwner(r, "admin:enterprise", "manage custom agents")
	if err != nil {
		return 0, err
	}
	return c.UserID(), nil
}

type agentJSON struct {
	Name     string `json:"name"`
	FilePath string `json:"file_path"`
	URL      string `json:"url"`
}

// GET /enterprises/{enterprise}/copilot/custom-agents
func (a *API) agents(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.agentsOwner(r); err != nil {
		return err
	}
	src, list, err := a.svc.Agents(r.Context(), a.d.Git)
	if err != nil {
		return err
	}
	if list == nil {
		return rest.JSON(w, http.StatusOK, map[string]any{"custom_agents": nil})
	}
	out := make([]agentJSON, len(list))
	for i, ag := range list {
		out[i] = agentJSON{Name: ag.Name, FilePath: ag.Path,
			URL: a.d.URLs.Web + "/" + src.Org.Login + "/" + src.Repo.Name + "/blob/" + src.Repo.DefaultBranch + "/" + ag.Path}
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"custom_agents": out})
}

type idLogin struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
}

type repoRef struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
}

// GET /enterprises/{enterprise}/copilot/custom-agents/source
func (a *API) agentsSource(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.agentsOwner(r); err != nil {
		return err
	}
	src, err := a.svc.GetAgentsSource(r.Context())
	if err != nil {
		return err
	}
	out := map[string]any{"organization": nil, "repository": nil}
	if src.Org != nil {
		out["organization"] = idLogin{src.Org.ID, src.Org.Login}
	}
	if src.Repo != nil {
		out["repository"] = repoRef{src.Repo.ID, src.Repo.Name, src.Org.Login + "/" + src.Repo.Name}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// PUT /enterprises/{enterprise}/copilot/custom-agents/source
func (a *API) setAgentsSource(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.agentsOwner(r)
	if err != nil {
		return err
	}
	var body struct {
		OrganizationID *int64 `json:"organization_id"`
		CreateRuleset  *bool  `json:"create_ruleset"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if body.OrganizationID == nil {
		return model.Invalid("CustomAgentsSource", "organization_id", "missing_field")
	}
	src, err := a.svc.SetAgentsSource(r.Context(), actor, *body.OrganizationID, body.CreateRuleset == nil || *body.CreateRuleset)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]any{
		"organization": map[string]any{"id": src.Org.ID, "login": src.Org.Login, "avatar_url": a.d.URLs.AvatarURL(src.Org)},
		"repository":   repoRef{src.Repo.ID, src.Repo.Name, src.Org.Login + "/" + src.Repo.Name},
	})
}

// DELETE /enterprises/{enterprise}/copilot/custom-agents/source
func (a *API) removeAgentsSource(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.agentsOwner(r)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveAgentsSource(r.Context(), actor); err != nil {
		return err
	}
	return rest.NoContent(w)
}
