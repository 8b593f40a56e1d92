package enterprise

import (
	"net/http"

	svc "github.com/hubd/hubd/internal/enterprise"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

const noteNetwork = "Network configurations are stored and validated (name, compute_service, exactly one network " +
	"settings resource that exists and no other configuration uses, an optional failover one). Network settings " +
	"resources are made outside hubd and registered by a site administrator (hubd network-settings add). hubd's " +
	"runners run on its own machine: no configuration joins a private network, and runner groups do not yet " +
	"reference configurations."

func (a *API) networkRoutes() []rest.Route {
	read := []string{"read:network_configurations", "write:network_configurations"}
	write := []string{"write:network_configurations"}
	c := "/enterprises/{enterprise}/network-configurations"
	return []rest.Route{
		{Method: "GET", Pattern: c, OperationID: "hosted-compute/list-network-configurations-for-enterprise", Handler: a.listNetworks, Scopes: read, Note: noteNetwork},
		{Method: "POST", Pattern: c, OperationID: "hosted-compute/create-network-configuration-for-enterprise", Handler: a.createNetwork, Scopes: write, Note: noteNetwork},
		{Method: "GET", Pattern: c + "/{network_configuration_id}", OperationID: "hosted-compute/get-network-configuration-for-enterprise", Handler: a.getNetwork, Scopes: read, Note: noteNetwork},
		{Method: "PATCH", Pattern: c + "/{network_configuration_id}", OperationID: "hosted-compute/update-network-configuration-for-enterprise", Handler: a.updateNetwork, Scopes: write, Note: noteNetwork},
		{Method: "DELETE", Pattern: c + "/{network_configuration_id}", OperationID: "hosted-compute/delete-network-configuration-from-enterprise", Handler: a.deleteNetwork, Scopes: write, Note: noteNetwork},
		{Method: "GET", Pattern: "/enterprises/{enterprise}/network-settings/{network_settings_id}", OperationID: "hosted-compute/get-network-settings-for-enterprise", Handler: a.getNetworkSettings, Scopes: read, Note: noteNetwork},
	}
}

// NetworkConfiguration is components/schemas/network-configuration.
type NetworkConfiguration struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	ComputeService  string   `json:"compute_service"`
	SettingsIDs     []string `json:"network_settings_ids"`
	FailoverIDs     []string `json:"failover_network_settings_ids"`
	FailoverEnabled bool     `json:"failover_network_enabled"`
	CreatedOn       *string  `json:"created_on"`
}

func toNetwork(c *svc.NetworkConfiguration) NetworkConfiguration {
	created := wire.Time(c.CreatedAt)
	out := NetworkConfiguration{ID: c.ID, Name: c.Name, ComputeService: c.ComputeService, SettingsIDs: []string{c.SettingsID},
		FailoverIDs: []string{}, FailoverEnabled: c.FailoverEnabled, CreatedOn: &created}
	if c.FailoverID != "" {
		out.FailoverIDs = []string{c.FailoverID}
	}
	return out
}

func (a *API) networkOwner(r *http.Request, write bool) (int64, error) {
	scope := "read:network_configurations"
	if write {
		scope = "write:network_configurations"
	}
	c, err := a.d.RequireEnterpriseOwner(r, scope, "manage the enterprise's network configurations")
	if err != nil {
		return 0, err
	}
	return c.UserID(), nil
}

// GET /enterprises/{enterprise}/network-configurations
func (a *API) listNetworks(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networkOwner(r, false); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.NetworkConfigurations(r.Context(), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]NetworkConfiguration, len(list))
	for i, c := range list {
		out[i] = toNetwork(c)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, map[string]any{"total_count": total, "network_configurations": out})
}

type networkBody struct {
	Name            *string   `json:"name"`
	ComputeService  *string   `json:"compute_service"`
	SettingsIDs     *[]string `json:"network_settings_ids"`
	FailoverIDs     *[]string `json:"failover_network_settings_ids"`
	FailoverEnabled *bool     `json:"failover_network_enabled"`
}

func (b networkBody) input() svc.NetworkInput {
	return svc.NetworkInput{Name: b.Name, ComputeService: b.ComputeService, SettingsIDs: b.SettingsIDs,
		FailoverIDs: b.FailoverIDs, FailoverEnabled: b.FailoverEnabled}
}

// POST /enterprises/{enterprise}/network-configurations
func (a *API) createNetwork(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.networkOwner(r, true)
	if err != nil {
		return err
	}
	var body networkBody
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	c, err := a.svc.CreateNetworkConfiguration(r.Context(), actor, body.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, toNetwork(c))
}

// GET /enterprises/{enterprise}/network-configurations/{network_configuration_id}
func (a *API) getNetwork(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networkOwner(r, false); err != nil {
		return err
	}
	c, err := a.svc.NetworkConfiguration(r.Context(), r.PathValue("network_configuration_id"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toNetwork(c))
}

// PATCH /enterprises/{enterprise}/network-configurations/{network_configuration_id}
func (a *API) updateNetwork(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.networkOwner(r, true)
	if err != nil {
		return err
	}
	var body networkBody
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	c, err := a.svc.UpdateNetworkConfiguration(r.Context(), actor, r.PathValue("network_configuration_id"), body.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toNetwork(c))
}

// DELETE /enterprises/{enterprise}/network-configurations/{network_configuration_id}
func (a *API) deleteNetwork(w http.ResponseWriter, r *http.Request) error {
	actor, err := a.networkOwner(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteNetworkConfiguration(r.Context(), actor, r.PathValue("network_configuration_id")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// NetworkSettings is components/schemas/network-settings.
type NetworkSettings struct {
	ID              string `json:"id"`
	ConfigurationID string `json:"network_configuration_id,omitempty"`
	Name            string `json:"name"`
	SubnetID        string `json:"subnet_id"`
	Region          string `json:"region"`
}

// GET /enterprises/{enterprise}/network-settings/{network_settings_id}
func (a *API) getNetworkSettings(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networkOwner(r, false); err != nil {
		return err
	}
	n, err := a.svc.NetworkSettingsByID(r.Context(), r.PathValue("network_settings_id"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, NetworkSettings{ID: n.ID, ConfigurationID: n.ConfigurationID, Name: n.Name, SubnetID: n.SubnetID, Region: n.Region})
}
