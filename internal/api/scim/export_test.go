package scim_test

import "github.com/hubd/hubd/internal/store"

var storeAll = store.EnterpriseTeamFilter{}
