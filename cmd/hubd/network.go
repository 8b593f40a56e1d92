package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hubd/hubd/internal/enterprise"
)

// networkSettingsAdd registers a hosted compute network settings resource
// (made outside hubd) that the enterprise's network configurations can
// then name.
func networkSettingsAdd(args []string) error {
	fs := flag.NewFlagSet("network-settings add", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	name := fs.String("name", "", "name of the network settings resource (required)")
	subnet := fs.String("subnet-id", "", "the subnet it is configured for (required)")
	region := fs.String("region", "", "the subnet's location, e.g. eastus (required)")
	fs.Parse(args)
	if *name == "" || *subnet == "" || *region == "" {
		return usageError(fs, "--name, --subnet-id and --region are required")
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := enterprise.New(st).RegisterNetworkSettings(ctx, 0, *name, *subnet, *region)
	if err != nil {
		return err
	}
	fmt.Printf("registered network settings %s (id %s)\n", n.Name, n.ID)
	return nil
}
