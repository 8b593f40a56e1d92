package store

import (
	"context"
	"strings"
)

// MigrationVersion is the version of the migration whose text contains
// marker, 0 when none does (tests).
func MigrationVersion(marker string) int {
	for i, m := range migrations {
		if strings.Contains(m, marker) {
			return i + 1
		}
	}
	return 0
}

// Migrate applies the migrations not recorded as applied (tests).
func Migrate(ctx context.Context, s *Store) error { return s.migrate(ctx) }
