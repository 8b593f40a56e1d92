package store

import (
	"context"
	"errors"
	"strings"
)

// RerunOrgInvitationConversion runs again the data half of the migration
// that made pending memberships invitations (tests put old-style rows in
// first).
func RerunOrgInvitationConversion(ctx context.Context, s *Store) error {
	for _, m := range migrations {
		if !strings.Contains(m, "CREATE TABLE org_invitations") {
			continue
		}
		data := m[strings.Index(m, "INSERT INTO org_invitations"):]
		return s.Tx(ctx, func(tx Q) error {
			for _, stmt := range strings.Split(data, ";\n") {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				if _, err := tx.execRaw(ctx, stmt); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return errors.New("no org_invitations migration")
}
