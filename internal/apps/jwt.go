package apps

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// GitHub's answers to a JSON web token it refuses (all 401).
var (
	ErrJWTDecode   = unauthorized("A JSON web token could not be decoded")
	ErrJWTIssuer   = unauthorized("'Issuer' claim ('iss') must be an Integer")
	ErrJWTNoIssuer = unauthorized("Missing 'issuer' claim ('iss') in assertion")
	ErrJWTIssuedAt = unauthorized("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
	ErrJWTExpired  = unauthorized("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	ErrJWTTooLong  = unauthorized("'Expiration time' claim ('exp') is too far in the future")
	ErrJWTNoKey    = unauthorized("Integration must generate a public key")
)

func unauthorized(msg string) *model.HTTPError { return &model.HTTPError{Status: 401, Message: msg} }

// JWT lifetimes GitHub allows: a token expires at most ten minutes after
// it was issued and after now; clocks may differ by a minute either way.
const (
	MaxJWTLifetime = 10 * time.Minute
	ClockDrift     = 60 * time.Second
)

// LooksLikeJWT reports whether a presented credential has the shape of a
// JSON web token (three dot-separated parts); hubd's own tokens never
// contain a dot.
func LooksLikeJWT(tok string) bool { return strings.Count(tok, ".") == 2 }

type jwtHeader struct {
	Alg string `json:"alg"`
	B64 *bool  `json:"b64"`
}

// AuthenticateJWT checks an app's JSON web token at time now: RS256,
// signed by one of the app's keys, issued by the app (iss: its id, as a
// number or a string, or its client id), issued no later than now (give
// or take the drift) and expiring after now but no more than ten minutes
// after it was issued and after now. It returns the app as a caller.
func (s *Service) AuthenticateJWT(ctx context.Context, tok string, now time.Time) (*authz.Caller, *model.App, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, nil, ErrJWTDecode
	}
	var h jwtHeader
	var claims map[string]json.RawMessage
	if decodePart(parts[0], &h) != nil || decodePart(parts[1], &claims) != nil {
		return nil, nil, ErrJWTDecode
	}
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[2], "="))
	if err != nil || h.Alg != "RS256" || (h.B64 != nil && !*h.B64) {
		return nil, nil, ErrJWTDecode
	}
	rawIss, ok := claims["iss"]
	if !ok || string(rawIss) == "null" {
		return nil, nil, ErrJWTNoIssuer
	}
	app, err := s.issuer(ctx, rawIss)
	if err != nil {
		return nil, nil, err
	}
	keys, err := s.Store.R().AppKeys(ctx, app.ID)
	if err != nil {
		return nil, nil, err
	}
	if len(keys) == 0 {
		return nil, nil, ErrJWTNoKey
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	verified := false
	for _, k := range keys {
		pub, err := parsePublicKey(k.PublicPEM)
		if err != nil {
			return nil, nil, err
		}
		if rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, nil, ErrJWTDecode
	}
	iat, ok := integerClaim(claims["iat"])
	if !ok || iat > now.Add(ClockDrift).Unix() {
		return nil, nil, ErrJWTIssuedAt
	}
	exp, ok := integerClaim(claims["exp"])
	if !ok || exp <= now.Add(-ClockDrift).Unix() {
		return nil, nil, ErrJWTExpired
	}
	limit := int64((MaxJWTLifetime + ClockDrift) / time.Second)
	if exp-iat > limit || exp-now.Unix() > limit {
		return nil, nil, ErrJWTTooLong
	}
	return &authz.Caller{Kind: authz.AppJWT, AppID: app.ID}, app, nil
}

// issuer finds the app an iss claim names: its id (a number, or a string
// of digits) or its client id.
func (s *Service) issuer(ctx context.Context, raw json.RawMessage) (*model.App, error) {
	q := s.Store.R()
	var app *model.App
	var err error
	if id, ok := integerClaim(raw); ok {
		app, err = q.AppByID(ctx, id)
	} else {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return nil, ErrJWTIssuer
		}
		if id, perr := strconv.ParseInt(str, 10, 64); perr == nil {
			app, err = q.AppByID(ctx, id)
		} else if app, err = q.AppByClientID(ctx, str); errors.Is(err, model.ErrNotFound) {
			return nil, ErrJWTIssuer
		}
	}
	if errors.Is(err, model.ErrNotFound) {
		return nil, ErrJWTDecode
	}
	return app, err
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// integerClaim reads a claim that must be an integer (a JSON number
// without a fraction).
func integerClaim(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || raw[0] == '"' {
		return 0, false
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	if v, err := n.Int64(); err == nil {
		return v, true
	}
	if f, err := n.Float64(); err == nil && f == float64(int64(f)) {
		return int64(f), true
	}
	return 0, false
}

func parsePublicKey(p string) (*rsa.PublicKey, error) {
	b, _ := pem.Decode([]byte(p))
	if b == nil {
		return nil, errors.New("apps: stored public key is not PEM")
	}
	k, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("apps: stored public key is not RSA")
	}
	return pub, nil
}

// JWTOperations are the operations an app calls as itself, with its JSON
// web token; a JWT on any other operation is refused.
var JWTOperations = map[string]bool{
	"apps/get-authenticated":                true,
	"apps/list-installations":               true,
	"apps/get-installation":                 true,
	"apps/delete-installation":              true,
	"apps/create-installation-access-token": true,
	"apps/suspend-installation":             true,
	"apps/unsuspend-installation":           true,
	"apps/get-repo-installation":            true,
	"apps/get-org-installation":             true,
	"apps/get-user-installation":            true,
	"apps/get-enterprise-installation":      true,
	"apps/get-by-slug":                      true,
	// The app's own webhook (internal/api/hooks).
	"apps/get-webhook-config-for-app":    true,
	"apps/update-webhook-config-for-app": true,
	"apps/list-webhook-deliveries":       true,
	"apps/get-webhook-delivery":          true,
	"apps/redeliver-webhook-delivery":    true,
}
