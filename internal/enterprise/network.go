package enterprise

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Hosted compute networking. A network settings resource is a subnet in a
// region that GitHub's hosted compute could join; it is made outside
// hubd (on GitHub, in the Azure subscription) and registered here by a
// site administrator (RegisterNetworkSettings). The enterprise's network
// configurations name one settings resource each (and an optional
// failover one). hubd's runners run on this machine: no private network
// is joined, which the catalogue's notes say.

// NetworkConfiguration and NetworkSettings are the stored shapes.
type (
	NetworkConfiguration = store.NetworkConfiguration
	NetworkSettings      = store.NetworkSettings
)

// enterpriseOwner is the owner id of the enterprise's configurations.
const enterpriseOwner = 0

const netResource = "NetworkConfiguration"

var netName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// NetworkInput is a create or update body: nil fields are absent.
type NetworkInput struct {
	Name            *string
	ComputeService  *string
	SettingsIDs     *[]string
	FailoverIDs     *[]string
	FailoverEnabled *bool
}

func newNetworkID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// RegisterNetworkSettings records a network settings resource and
// returns it.
func (s *Service) RegisterNetworkSettings(ctx context.Context, actorID int64, name, subnetID, region string) (*NetworkSettings, error) {
	n := &NetworkSettings{ID: newNetworkID(), Name: strings.TrimSpace(name), SubnetID: strings.TrimSpace(subnetID), Region: strings.TrimSpace(region)}
	if n.Name == "" || n.SubnetID == "" || n.Region == "" {
		return nil, errors.New("a network settings resource needs a name, a subnet id and a region")
	}
	err := s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateNetworkSettings(ctx, n); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "network_settings.registered", actorID, 0, 0, map[string]any{"id": n.ID, "subnet_id": n.SubnetID, "region": n.Region})
	})
	return n, err
}

// NetworkSettingsByID is one network settings resource.
func (s *Service) NetworkSettingsByID(ctx context.Context, id string) (*NetworkSettings, error) {
	return s.st.R().NetworkSettingsByID(ctx, id)
}

// NetworkConfigurations is a page of the enterprise's configurations and
// their count.
func (s *Service) NetworkConfigurations(ctx context.Context, limit, offset int) ([]*NetworkConfiguration, int, error) {
	return s.st.R().NetworkConfigurations(ctx, enterpriseOwner, limit, offset)
}

// NetworkConfiguration is one of the enterprise's configurations.
func (s *Service) NetworkConfiguration(ctx context.Context, id string) (*NetworkConfiguration, error) {
	return s.st.R().NetworkConfigurationByID(ctx, enterpriseOwner, id)
}

// CreateNetworkConfiguration validates and stores a configuration.
func (s *Service) CreateNetworkConfiguration(ctx context.Context, actorID int64, in NetworkInput) (*NetworkConfiguration, error) {
	c := &NetworkConfiguration{ID: newNetworkID(), OwnerID: enterpriseOwner, ComputeService: "none"}
	if in.Name == nil {
		return nil, model.Invalid(netResource, "name", "missing_field")
	}
	if in.SettingsIDs == nil || len(*in.SettingsIDs) == 0 {
		return nil, model.Invalid(netResource, "network_settings_ids", "missing_field")
	}
	err := s.st.Tx(ctx, func(tx store.Q) error {
		if err := applyNetwork(ctx, tx, c, in); err != nil {
			return err
		}
		if err := netDuplicate(tx.CreateNetworkConfiguration(ctx, c)); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "network_configuration.created", actorID, 0, 0, map[string]any{"id": c.ID, "name": c.Name})
	})
	if err != nil {
		return nil, err
	}
	return s.NetworkConfiguration(ctx, c.ID)
}

// UpdateNetworkConfiguration changes the fields present.
func (s *Service) UpdateNetworkConfiguration(ctx context.Context, actorID int64, id string, in NetworkInput) (*NetworkConfiguration, error) {
	err := s.st.Tx(ctx, func(tx store.Q) error {
		c, err := tx.NetworkConfigurationByID(ctx, enterpriseOwner, id)
		if err != nil {
			return err
		}
		if err := applyNetwork(ctx, tx, c, in); err != nil {
			return err
		}
		if err := netDuplicate(tx.UpdateNetworkConfiguration(ctx, c)); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "network_configuration.updated", actorID, 0, 0, map[string]any{"id": c.ID, "name": c.Name})
	})
	if err != nil {
		return nil, err
	}
	return s.NetworkConfiguration(ctx, id)
}

// DeleteNetworkConfiguration removes one of the enterprise's
// configurations (its settings resources stay registered, free).
func (s *Service) DeleteNetworkConfiguration(ctx context.Context, actorID int64, id string) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteNetworkConfiguration(ctx, enterpriseOwner, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "network_configuration.deleted", actorID, 0, 0, map[string]any{"id": id})
	})
}

func netDuplicate(err error) error {
	if errors.Is(err, store.ErrDuplicate) {
		return model.Custom(netResource, "name", "A network configuration with this name already exists, or a network settings resource is used by another one.")
	}
	return err
}

// applyNetwork validates in onto c: the name's characters, the compute
// service, and settings resources that are registered and not another
// configuration's.
func applyNetwork(ctx context.Context, q store.Q, c *NetworkConfiguration, in NetworkInput) error {
	if in.Name != nil {
		if !netName.MatchString(*in.Name) {
			return model.Custom(netResource, "name", "Name must be between 1 and 100 characters and may only contain upper and lowercase letters a-z, numbers 0-9, '.', '-', and '_'.")
		}
		c.Name = *in.Name
	}
	if in.ComputeService != nil {
		if v := *in.ComputeService; v != "none" && v != "actions" {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: netResource, Field: "compute_service", Code: "invalid", Value: v}}}
		}
		c.ComputeService = *in.ComputeService
	}
	settings := func(field string, ids []string, set *string) error {
		if len(ids) > 1 {
			return model.Custom(netResource, field, "Exactly one network settings resource identifier must be given.")
		}
		if len(ids) == 0 {
			return nil
		}
		n, err := q.NetworkSettingsByID(ctx, ids[0])
		if errors.Is(err, model.ErrNotFound) {
			return model.Custom(netResource, field, "Network settings resource "+ids[0]+" was not found.")
		}
		if err != nil {
			return err
		}
		if n.ConfigurationID != "" && n.ConfigurationID != c.ID {
			return model.Custom(netResource, field, "Network settings resource "+ids[0]+" is used by another network configuration.")
		}
		*set = n.ID
		return nil
	}
	if in.SettingsIDs != nil {
		if err := settings("network_settings_ids", *in.SettingsIDs, &c.SettingsID); err != nil {
			return err
		}
	}
	if in.FailoverIDs != nil {
		c.FailoverID = ""
		if err := settings("failover_network_settings_ids", *in.FailoverIDs, &c.FailoverID); err != nil {
			return err
		}
	}
	if in.FailoverEnabled != nil {
		c.FailoverEnabled = *in.FailoverEnabled
	}
	if c.FailoverID != "" && c.FailoverID == c.SettingsID {
		return model.Custom(netResource, "failover_network_settings_ids", "The failover network settings resource must differ from the primary one.")
	}
	return nil
}
