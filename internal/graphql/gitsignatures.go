package graphql

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/signatures"
)

// sigObj is a commit's signature with its verification (the signatures
// service's, as REST's commit verification object).
type sigObj struct {
	typ   string // GpgSignature, SshSignature or UnknownSignature
	email string
	v     model.Verification
}

// sigStates are GitHub's GitSignatureState names of the verification
// reasons that are not simply the reason upper-cased.
var sigStates = map[string]string{
	signatures.Malformed:      "MALFORMED_SIG",
	signatures.UnknownSigType: "UNKNOWN_SIG_TYPE",
}

// registerCommitSignature serves Commit.signature: null for an unsigned
// commit, else the signature by its kind with GitHub's verification, the
// page's commits verified in one batch.
func (a *API) registerCommitSignature() {
	a.schema.Resolve("Commit", "signature", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		out := b.Values(len(b.Parents))
		if a.d.Signatures == nil {
			return out, nil
		}
		var objs []signatures.Object
		var at []int
		var kinds []string
		for i, p := range b.Parents {
			c, err := a.commitData(ctx, p.(*commitObj))
			if err != nil {
				return nil, err
			}
			if c.Signature == "" {
				continue
			}
			objs = append(objs, signatures.Object{OID: c.OID, Signature: c.Signature, Payload: string(c.Payload),
				Email: c.Committer.Email, When: c.Committer.When})
			at = append(at, i)
			kind := "UnknownSignature"
			switch {
			case strings.HasPrefix(c.Signature, "-----BEGIN PGP SIGNATURE-----"):
				kind = "GpgSignature"
			case strings.HasPrefix(c.Signature, "-----BEGIN SSH SIGNATURE-----"):
				kind = "SshSignature"
			}
			kinds = append(kinds, kind)
		}
		if len(objs) == 0 {
			return out, nil
		}
		vs, err := a.d.Signatures.VerifyAll(ctx, objs)
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			out[at[j]] = &sigObj{typ: kinds[j], email: objs[j].Email, v: v}
		}
		return out, nil
	})
	for _, typ := range []string{"GpgSignature", "SshSignature", "UnknownSignature"} {
		sg := func(name string, f func(s *sigObj) any) {
			a.field(typ, name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*sigObj)), nil })
		}
		sg("email", func(s *sigObj) any { return s.email })
		sg("isValid", func(s *sigObj) any { return s.v.Verified })
		sg("payload", func(s *sigObj) any { return s.v.Payload })
		sg("signature", func(s *sigObj) any { return s.v.Signature })
		sg("state", func(s *sigObj) any {
			if st, ok := sigStates[s.v.Reason]; ok {
				return st
			}
			return strings.ToUpper(s.v.Reason)
		})
		sg("verifiedAt", func(s *sigObj) any { return s.v.VerifiedAt })
		// hubd signs no commit itself (web commits are unsigned).
		sg("wasSignedByGitHub", func(*sigObj) any { return false })
	}
}
