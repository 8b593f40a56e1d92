package auditlog

import "github.com/hubd/hubd/internal/rest"

func (a *API) streamRoutes() []rest.Route { return nil }
