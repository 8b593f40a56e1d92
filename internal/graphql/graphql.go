// Package graphql serves GitHub's GraphQL API at /api/graphql (and
// /graphql): GitHub's own schema pruned to what hubd resolves
// (schema.graphql, generated from keep.txt by `make graphql-schema`),
// executed by internal/graphql/engine with batched resolvers over the same
// store, permission rule and services as the REST API.
package graphql

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/forks"
	"github.com/hubd/hubd/internal/gists"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/refs"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/stars"
	"github.com/hubd/hubd/internal/transfers"
)

//go:embed schema.graphql
var schemaSource string

// API is the GraphQL transport.
type API struct {
	d         *deps.Deps
	schema    *engine.Schema
	issuesSvc *issues.Service
	gistsSvc  *gists.Service // addStar and removeStar star gists too
}

// Services are the domain services mutations run (the same the REST routes
// run); zero only where nothing is executed (schema tests).
type Services struct {
	Issues   *issues.Service
	Pulls    *pulls.Service
	Reviews  *pullreviews.Service
	Repos    *repos.Service
	Stars    *stars.Service
	Rulesets *rulesets.Service
	Gists    *gists.Service
	Forks    *forks.Service // cloneTemplateRepository
	// Transfers runs transferIssue.
	Transfers *transfers.Service
	// Refs runs createLinkedBranch and deleteLinkedBranch.
	Refs *refs.Service
}

// New loads the schema and registers the resolvers.
func New(d *deps.Deps, svc Services) *API {
	s, err := engine.New(schemaSource)
	if err != nil {
		panic("graphql: the embedded schema does not load: " + err.Error())
	}
	a := &API{d: d, schema: s, issuesSvc: svc.Issues, gistsSvc: svc.Gists}
	s.TypeOf = typeOf
	s.Guard = guard
	s.RequestID = func(ctx context.Context) string { return from(ctx).requestID }
	a.register()
	a.registerMutations(svc.Issues)
	a.registerIssueRelations(svc.Issues)
	a.registerIssueTypes(svc.Issues)
	a.registerPins(svc.Issues)
	a.registerPullMutations(svc.Pulls)
	a.registerPullReviewing(svc.Pulls, svc.Reviews)
	a.registerRepoMutations(svc.Repos)
	a.registerStars(svc.Stars)
	a.registerRulesets(svc.Rulesets)
	a.registerGists(svc.Gists)
	a.registerTemplates(svc.Forks)
	a.registerTransfers(svc.Transfers)
	a.registerLinkedBranches(svc.Refs)
	return a
}

// Schema is the executable schema (tests read it).
func (a *API) Schema() *engine.Schema { return a.schema }

// Routes serves POST /graphql; the server maps GitHub Enterprise's
// /api/graphql onto it.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "POST", Pattern: "/graphql", OperationID: "graphql", Handler: a.serve, Extension: true, Resource: "graphql"},
	}
}

// request is what resolvers know of the request they serve.
type request struct {
	caller    *authz.Caller
	r         *http.Request
	cost      engine.Cost
	requestID string
}

type reqKey struct{}

func from(ctx context.Context) *request {
	if rq, ok := ctx.Value(reqKey{}).(*request); ok {
		return rq
	}
	return &request{caller: &authz.Caller{}}
}

// guard refuses a field or mutation to a GitHub App's token or a
// fine-grained personal access token without the fine-grained permission
// it needs (authz.GraphQLPermissions, the twin of the REST table), as
// GitHub does: a FORBIDDEN error at its path. Classic tokens keep their
// scopes (checked by the services).
func guard(ctx context.Context, typ, field string) *engine.Error {
	c := from(ctx).caller
	var msg string
	switch c.Kind {
	case authz.Installation, authz.UserToServer:
		msg = "Resource not accessible by integration"
	case authz.FineGrained:
		msg = authz.ErrPATMessage
	default:
		return nil
	}
	sets := authz.GraphQLPermissions(typ, field)
	if len(sets) == 0 || authz.AllowedBy(sets, authz.WithMetadata(c.Permissions)) {
		return nil
	}
	return &engine.Error{Type: "FORBIDDEN", Message: msg}
}

// guardTarget is guard for a mutation whose permission depends on what it
// acts on (labels and locks: "Discussion" or "Issue"), once that is known.
func guardTarget(ctx context.Context, field, target string) error {
	if e := guard(ctx, "Mutation", field+"("+target+")"); e != nil {
		return e
	}
	return nil
}

// Timeout is how long GitHub lets a GraphQL request run.
const Timeout = 10 * time.Second

// maxBody bounds a GraphQL document with its variables.
const maxBody = 1 << 20

func (a *API) serve(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		// GitHub's GraphQL API has no anonymous access.
		return &model.HTTPError{Status: http.StatusUnauthorized, Message: "This endpoint requires you to be authenticated."}
	}
	var req engine.Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return model.BadRequest("Problems parsing JSON")
	}
	if req.Query == "" {
		return writeJSON(w, &engine.Response{Errors: []*engine.RespError{{Message: "A query attribute must be specified and must be a string."}}})
	}
	// GitHub gives a request ten seconds, validation included; a client
	// that hangs up ends it sooner.
	ctx, cancel := context.WithTimeout(r.Context(), Timeout)
	defer cancel()
	rq := &request{caller: c, r: r, requestID: rest.From(r).RequestID}
	ctx = context.WithValue(ctx, reqKey{}, rq)
	p, bad := a.schema.PrepareContext(ctx, &req)
	if bad != nil {
		return writeJSON(w, bad)
	}
	// GitHub's point cost: a request took one point on its way in; a
	// document that pages through more takes the rest now, or none of it.
	cost := a.schema.Cost(p)
	if over := nodeLimit(cost); over != "" {
		return writeJSON(w, &engine.Response{Errors: []*engine.RespError{{Type: "MAX_NODE_LIMIT_EXCEEDED", Message: over}}})
	}
	rq.cost = cost
	if cost.Points > 1 {
		key, class := rateKey(rq)
		st, ok := a.d.Limiter.TakeN(key, class, "graphql", cost.Points-1)
		h := w.Header()
		h.Set("X-RateLimit-Remaining", strconv.Itoa(st.Remaining))
		h.Set("X-RateLimit-Used", strconv.Itoa(st.Used))
		if !ok {
			return writeJSON(w, &engine.Response{Errors: []*engine.RespError{{Type: "RATE_LIMITED",
				Message: fmt.Sprintf("API rate limit exceeded for user ID %d.", c.UserID())}}})
		}
	}
	return writeJSON(w, a.schema.Execute(ctx, p))
}

// nodeLimit is GitHub's refusal of a document that may return more than
// 500,000 nodes: naming the connection that alone may return that many, or
// else the sum (gh's pull request list with commits and their authors is
// refused at 100 pull requests for the authors connection's 1,000,000
// nodes, and at 50 for the document's 505,050).
func nodeLimit(c engine.Cost) string {
	switch {
	case c.Over != "":
		return fmt.Sprintf("By the time this query traverses to the %s connection, it is requesting up to %s possible nodes which exceeds the maximum limit of 500,000.", c.Over, thousands(c.OverNodes))
	case c.Nodes > engine.MaxNodes:
		return fmt.Sprintf("This query requests up to %s possible nodes which exceeds the maximum limit of 500,000.", thousands(c.Nodes))
	}
	return ""
}

// thousands writes n with comma separators, as GitHub's messages do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// buffers hold response bodies between requests.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func writeJSON(w http.ResponseWriter, resp *engine.Response) error {
	bp := buffers.Get().(*[]byte)
	b, err := resp.AppendJSON((*bp)[:0])
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	if cap(b) <= 1<<20 {
		*bp = b
		buffers.Put(bp)
	}
	return err
}

func init() {
	engine.InternalError = func(ctx context.Context, err error) {
		slog.Error("graphql", "err", err)
	}
}
