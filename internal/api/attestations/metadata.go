package attestations

import "github.com/hubd/hubd/internal/rest"

func (a *API) metadataRoutes() []rest.Route { return nil }
