package enterprise_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	svc "github.com/hubd/hubd/internal/enterprise"
)

func TestNetworkConfigurations(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	write := e.Token(e.Admin, "write:network_configurations")
	read := e.Token(e.Admin, "read:network_configurations")
	_, userTok := e.NewUser("mona", false)
	s := svc.New(e.Store)
	primary, err := s.RegisterNetworkSettings(ctx, e.Admin.ID, "vnet-a", "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/a", "eastus")
	if err != nil {
		t.Fatal(err)
	}
	failover, err := s.RegisterNetworkSettings(ctx, e.Admin.ID, "vnet-b", "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/b", "westus")
	if err != nil {
		t.Fatal(err)
	}
	const c = "/enterprises/hubd/network-configurations"

	// go-github's client creates, reads, updates, lists and deletes.
	gh := e.GitHub(write)
	cfg, _, err := gh.Enterprise.CreateEnterpriseNetworkConfiguration(ctx, "hubd", github.NetworkConfigurationRequest{
		Name: github.Ptr("net_1"), ComputeService: github.Ptr(github.ComputeServiceActions), NetworkSettingsIDs: []string{primary.ID}})
	if err != nil || cfg.GetName() != "net_1" || len(cfg.NetworkSettingsIDs) != 1 || cfg.NetworkSettingsIDs[0] != primary.ID {
		t.Fatalf("create = %+v %v", cfg, err)
	}
	id := cfg.GetID()
	got := e.Must(200, "GET", c+"/"+id, read, nil).Map(t)
	if got["compute_service"] != "actions" || got["created_on"] == nil {
		t.Fatalf("get = %v", got)
	}
	ns, _, err := e.GitHub(read).Enterprise.GetEnterpriseNetworkSettingsResource(ctx, "hubd", primary.ID)
	if err != nil || ns.GetNetworkConfigurationID() != id || ns.GetRegion() != "eastus" || ns.GetName() != "vnet-a" {
		t.Fatalf("settings = %+v %v", ns, err)
	}
	up := e.Must(200, "PATCH", c+"/"+id, write, map[string]any{"name": "net-2", "failover_network_settings_ids": []string{failover.ID},
		"failover_network_enabled": true}).Map(t)
	if up["name"] != "net-2" || up["failover_network_enabled"] != true || len(up["failover_network_settings_ids"].([]any)) != 1 {
		t.Fatalf("update = %v", up)
	}
	if got := e.Must(200, "GET", "/enterprises/hubd/network-settings/"+failover.ID, read, nil).Map(t); got["network_configuration_id"] != id {
		t.Fatalf("failover settings = %v", got)
	}

	// A second configuration: a settings resource in use, an unknown one,
	// a name taken (ignoring case) or with a bad character are refused.
	e.Must(422, "POST", c, write, map[string]any{"name": "other", "network_settings_ids": []string{primary.ID}})
	e.Must(422, "POST", c, write, map[string]any{"name": "other", "network_settings_ids": []string{"NOPE"}})
	third, err := s.RegisterNetworkSettings(ctx, e.Admin.ID, "vnet-c", "/subscriptions/x/subnets/c", "northeurope")
	if err != nil {
		t.Fatal(err)
	}
	e.Must(422, "POST", c, write, map[string]any{"name": "NET-2", "network_settings_ids": []string{third.ID}})
	e.Must(422, "POST", c, write, map[string]any{"name": "bad name!", "network_settings_ids": []string{third.ID}})
	e.Must(422, "POST", c, write, map[string]any{"name": "other"})
	e.Must(422, "POST", c, write, map[string]any{"name": "other", "network_settings_ids": []string{third.ID}, "compute_service": "codespaces"})
	e.Must(201, "POST", c, write, map[string]any{"name": "other", "network_settings_ids": []string{third.ID}})

	list, resp, err := gh.Enterprise.ListEnterpriseNetworkConfigurations(ctx, "hubd", &github.ListOptions{PerPage: 1})
	if err != nil || list.GetTotalCount() != 2 || len(list.NetworkConfigurations) != 1 || resp.NextPage != 2 {
		t.Fatalf("list = %+v %v", list, err)
	}

	// Who may: enterprise owners with the scope.
	e.Must(403, "POST", c, read, map[string]any{"name": "x", "network_settings_ids": []string{third.ID}})
	e.Must(403, "GET", c, userTok, nil)
	e.Must(403, "GET", c, e.Token(e.Admin, "repo"), nil)
	e.Must(401, "GET", c, "", nil)
	e.Must(404, "GET", "/enterprises/other/network-configurations", read, nil)
	e.Must(404, "GET", c+"/NOPE", read, nil)
	e.Must(404, "GET", "/enterprises/hubd/network-settings/NOPE", read, nil)

	if _, err := gh.Enterprise.DeleteEnterpriseNetworkConfiguration(ctx, "hubd", id); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", c+"/"+id, read, nil)
	e.Must(404, "DELETE", c+"/"+id, write, nil)
	// Its settings resource is free again.
	e.Must(201, "POST", c, write, map[string]any{"name": "again", "network_settings_ids": []string{primary.ID}})
}
