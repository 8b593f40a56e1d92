// Package live builds hubd's route table exactly as the server does and
// computes the catalogue from it, for the commands and tests that have no
// running server (hubd catalogue, the proof check, the README counts).
package live

import (
	"context"
	"os"
	"path/filepath"

	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/server"
	"github.com/hubd/hubd/internal/store"
)

// Routes is the route table of server.Build, built on a scratch SQLite
// database that is removed afterwards (no request is served).
func Routes() ([]catalogue.RouteInfo, error) {
	dir, err := os.MkdirTemp("", "hubd-catalogue-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(context.Background(), filepath.Join(dir, "hubd.db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s, deps, err := server.Build(server.Config{Store: st, ExternalURL: "http://127.0.0.1:8080", Limits: ratelimit.DefaultLimits(),
		GitRoot: filepath.Join(dir, "git")})
	if err != nil {
		return nil, err
	}
	if deps.Git != nil {
		defer deps.Git.Close()
	}
	return catalogue.Infos(s.Routes()), nil
}

// Report is the catalogue of the route table.
func Report() (*catalogue.Report, error) {
	routes, err := Routes()
	if err != nil {
		return nil, err
	}
	return catalogue.NewReport(routes), nil
}

// ReadmeSection is the generated part of README.md.
func ReadmeSection(r *catalogue.Report) string {
	return "\n" + catalogue.CountsMarkdown(r) + "\n"
}
