package gitrepo

import (
	"context"
	"fmt"
)

// Checkout makes dir (which must not exist) a working copy of the
// repository at commit sha, detached, with origin pointing at remote (a
// workflow job's checkout). The clone is local: objects are hard-linked.
func (r *Repo) Checkout(ctx context.Context, sha, dir, remote string) error {
	if !ValidOID(sha) {
		return fmt.Errorf("gitrepo: checkout of %q: not an object id", sha)
	}
	if _, err := r.m.run(ctx, r.Path, nil, "clone", "--quiet", "--no-checkout", "--local", "--", r.Path, dir); err != nil {
		return err
	}
	if _, err := r.m.run(ctx, dir, nil, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", sha); err != nil {
		return err
	}
	if remote != "" {
		if _, err := r.m.run(ctx, dir, nil, "remote", "set-url", "origin", remote); err != nil {
			return err
		}
	}
	return nil
}
