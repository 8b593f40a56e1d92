package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// NetworkSettings is a hosted compute network settings resource: a subnet
// in a region, registered by a site administrator; ConfigurationID is the
// configuration that uses it ("" for none).
type NetworkSettings struct {
	ID, Name, SubnetID, Region string
	ConfigurationID            string
	CreatedAt                  time.Time
}

// NetworkConfiguration is a hosted compute network configuration of an
// owner (0: the enterprise).
type NetworkConfiguration struct {
	ID, Name        string
	OwnerID         int64
	ComputeService  string // none, actions
	SettingsID      string
	FailoverID      string // "" for none
	FailoverEnabled bool
	CreatedAt       time.Time
}

// CreateNetworkSettings registers a network settings resource.
func (q Q) CreateNetworkSettings(ctx context.Context, n *NetworkSettings) error {
	n.CreatedAt = q.Now()
	_, err := q.exec(ctx, `INSERT INTO network_settings (id, name, subnet_id, region, created_at) VALUES (?,?,?,?,?)`,
		n.ID, n.Name, n.SubnetID, n.Region, unix(n.CreatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// NetworkSettingsByID finds a network settings resource with the
// configuration using it.
func (q Q) NetworkSettingsByID(ctx context.Context, id string) (*NetworkSettings, error) {
	n := &NetworkSettings{}
	var created int64
	var cfg sql.NullString
	err := q.row(ctx, `SELECT s.id, s.name, s.subnet_id, s.region, s.created_at,
 (SELECT c.id FROM network_configurations c WHERE c.settings_id = s.id OR c.failover_settings_id = s.id)
 FROM network_settings s WHERE s.id = ?`, id).Scan(&n.ID, &n.Name, &n.SubnetID, &n.Region, &created, &cfg)
	n.CreatedAt, n.ConfigurationID = fromUnix(created), cfg.String
	return n, notFound(err)
}

const networkConfigCols = `id, owner_id, name, compute_service, settings_id, COALESCE(failover_settings_id, ''), failover_enabled, created_at`

func scanNetworkConfig(sc scanner) (*NetworkConfiguration, error) {
	c := &NetworkConfiguration{}
	var created int64
	err := sc.Scan(&c.ID, &c.OwnerID, &c.Name, &c.ComputeService, &c.SettingsID, &c.FailoverID, &c.FailoverEnabled, &created)
	c.CreatedAt = fromUnix(created)
	return c, err
}

// CreateNetworkConfiguration inserts a configuration; ErrDuplicate when
// the owner has one of that name (ignoring case) or a settings resource
// is another configuration's.
func (q Q) CreateNetworkConfiguration(ctx context.Context, c *NetworkConfiguration) error {
	c.CreatedAt = q.Now()
	_, err := q.exec(ctx, `INSERT INTO network_configurations (id, owner_id, name, lower_name, compute_service, settings_id,
 failover_settings_id, failover_enabled, created_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		c.ID, c.OwnerID, c.Name, strings.ToLower(c.Name), c.ComputeService, c.SettingsID, emptyNull(c.FailoverID), c.FailoverEnabled, unix(c.CreatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// UpdateNetworkConfiguration writes every mutable column.
func (q Q) UpdateNetworkConfiguration(ctx context.Context, c *NetworkConfiguration) error {
	res, err := q.exec(ctx, `UPDATE network_configurations SET name = ?, lower_name = ?, compute_service = ?, settings_id = ?,
 failover_settings_id = ?, failover_enabled = ? WHERE id = ? AND owner_id = ?`,
		c.Name, strings.ToLower(c.Name), c.ComputeService, c.SettingsID, emptyNull(c.FailoverID), c.FailoverEnabled, c.ID, c.OwnerID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return updatedOne(res, err)
}

// DeleteNetworkConfiguration removes an owner's configuration.
func (q Q) DeleteNetworkConfiguration(ctx context.Context, ownerID int64, id string) error {
	res, err := q.exec(ctx, `DELETE FROM network_configurations WHERE id = ? AND owner_id = ?`, id, ownerID)
	return updatedOne(res, err)
}

// NetworkConfigurationByID finds an owner's configuration.
func (q Q) NetworkConfigurationByID(ctx context.Context, ownerID int64, id string) (*NetworkConfiguration, error) {
	c, err := scanNetworkConfig(q.row(ctx, `SELECT `+networkConfigCols+` FROM network_configurations WHERE id = ? AND owner_id = ?`, id, ownerID))
	return c, notFound(err)
}

// NetworkConfigurations is a page of an owner's configurations, oldest
// first, and their count.
func (q Q) NetworkConfigurations(ctx context.Context, ownerID int64, limit, offset int) ([]*NetworkConfiguration, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM network_configurations WHERE owner_id = ?`, ownerID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+networkConfigCols+` FROM network_configurations WHERE owner_id = ?
 ORDER BY created_at, id LIMIT ? OFFSET ?`, ownerID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*NetworkConfiguration{}
	for rows.Next() {
		c, err := scanNetworkConfig(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}
