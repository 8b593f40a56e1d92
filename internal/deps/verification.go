package deps

import (
	"context"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/signatures"
	"github.com/hubd/hubd/internal/wire"
)

// CommitVerifications are the verification objects of commits, in order,
// verified in one batch by the signatures service.
func (d *Deps) CommitVerifications(ctx context.Context, commits ...*gitrepo.Commit) ([]wire.GitVerification, error) {
	objs := make([]signatures.Object, len(commits))
	for i, c := range commits {
		objs[i] = signatures.Object{OID: c.OID, Signature: c.Signature, Payload: string(c.Payload), Email: c.Committer.Email, When: c.Committer.When}
	}
	return d.verifications(ctx, objs)
}

// TagVerification is the verification object of an annotated tag; payload
// is the tag object without its signature.
func (d *Deps) TagVerification(ctx context.Context, t *gitrepo.Tag, payload string) (wire.GitVerification, error) {
	o := signatures.Object{OID: t.OID, Signature: t.Sig, Payload: payload}
	if t.Tagger != nil {
		o.Email, o.When = t.Tagger.Email, t.Tagger.When
	}
	vs, err := d.verifications(ctx, []signatures.Object{o})
	if err != nil {
		return wire.GitVerification{}, err
	}
	return vs[0], nil
}

func (d *Deps) verifications(ctx context.Context, objs []signatures.Object) ([]wire.GitVerification, error) {
	out := make([]wire.GitVerification, len(objs))
	if d.Signatures == nil {
		for i, o := range objs {
			out[i] = wire.ToGitVerification(o.Signature, o.Payload)
		}
		return out, nil
	}
	vs, err := d.Signatures.VerifyAll(ctx, objs)
	if err != nil {
		return nil, err
	}
	for i, v := range vs {
		out[i] = wire.ToVerification(v)
	}
	return out, nil
}
