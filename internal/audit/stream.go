package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/store"
)

// The stream types hubd sends to: both are an HTTPS endpoint taking
// Splunk's HTTP Event Collector format with a token.
const (
	TypeHEC    = "HTTPS Event Collector"
	TypeSplunk = "Splunk"
)

// StreamTypes are GitHub's stream types; hubd sends only to the HTTPS
// ones.
var StreamTypes = []string{"Azure Blob Storage", "Azure Event Hubs", "Amazon S3", "Splunk", "HTTPS Event Collector", "Google Cloud Storage", "Datadog"}

const jobStream = "audit.stream"

// streamScope holds the streams' tokens in the secrets store.
var streamScope = model.SecretScope{App: "audit_log_streaming", Kind: model.SecretEnterprise}

// Streams keeps the audit log's streams and sends them the log through
// the job queue: each enabled stream has one pending job that sends the
// entries after its cursor, moves the cursor and queues itself again.
type Streams struct {
	Store   *store.Store
	Secrets *secrets.Service
	Jobs    *jobs.Queue
	// Client is the client for a stream (insecure: without TLS
	// verification), the webhooks' (it honours their delivery policy).
	Client func(insecure bool) *http.Client
	// Poll is how soon a stream that sent everything looks again.
	Poll time.Duration
	// Batch is the most entries one request carries.
	Batch int
	// Business is the enterprise's slug, the entries' business.
	Business string
}

// NewStreams makes the streams and registers their job (q nil: another
// process's queue sends).
func NewStreams(s *Streams) *Streams {
	if s.Poll == 0 {
		s.Poll = 5 * time.Second
	}
	if s.Batch == 0 {
		s.Batch = 100
	}
	if s.Jobs != nil {
		s.Jobs.Handle(jobStream, s.run)
	}
	return s
}

// Key is the public key stream tokens are sealed with.
func (s *Streams) Key(ctx context.Context) (secrets.PublicKey, error) {
	return s.Secrets.PublicKey(ctx, streamScope)
}

// StreamInput is a stream's configuration as a request gives it.
type StreamInput struct {
	Enabled        bool
	Type           string
	Domain, Path   string
	Port           int
	KeyID          string
	EncryptedToken string
	SSLVerify      bool
}

func (in *StreamInput) check() error {
	if !strings.EqualFold(in.Type, TypeHEC) && !strings.EqualFold(in.Type, TypeSplunk) {
		for _, t := range StreamTypes {
			if t == in.Type {
				return model.Unprocessable("Stream type " + in.Type + " is not supported: hubd streams to HTTPS Event Collector and Splunk endpoints.")
			}
		}
		return model.Unprocessable("Invalid stream_type: " + in.Type)
	}
	if in.Type == TypeSplunk && in.Path == "" {
		in.Path = "/services/collector/event"
	}
	if in.Domain == "" || strings.ContainsAny(in.Domain, "/?#@ ") {
		return model.Unprocessable("Invalid domain: give the endpoint's host name.")
	}
	if in.Port <= 0 || in.Port > 65535 {
		return model.Unprocessable("Invalid port: " + strconv.Itoa(in.Port))
	}
	if in.Path != "" && !strings.HasPrefix(in.Path, "/") {
		in.Path = "/" + in.Path
	}
	if in.KeyID == "" || in.EncryptedToken == "" {
		return model.Unprocessable("key_id and encrypted_token are required.")
	}
	return nil
}

func (in StreamInput) apply(st *model.AuditStream) {
	st.Type, st.Enabled, st.Domain, st.Port, st.Path, st.SSLVerify, st.KeyID = in.Type, in.Enabled, in.Domain, in.Port, in.Path, in.SSLVerify, in.KeyID
}

// Create adds a stream: it sends the entries recorded from now on. The
// token goes to the secrets store first (which opens the sealed box, so a
// bad box changes nothing); a failure after leaves at most an unused
// token.
func (s *Streams) Create(ctx context.Context, actorID int64, in StreamInput) (*model.AuditStream, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	st := &model.AuditStream{TokenName: "STREAM_" + strings.ReplaceAll(randid.UUID(), "-", "_")}
	in.apply(st)
	if _, err := s.Secrets.Set(ctx, streamScope, actorID, st.TokenName, secrets.Put{KeyID: in.KeyID, EncryptedValue: in.EncryptedToken}); err != nil {
		return nil, err
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAuditStream(ctx, st); err != nil {
			return err
		}
		return s.recorded(ctx, tx, st, actorID, "create")
	})
	if err != nil {
		return nil, err
	}
	s.wake()
	return st, nil
}

// Update replaces a stream's settings and token.
func (s *Streams) Update(ctx context.Context, id, actorID int64, in StreamInput) (*model.AuditStream, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	st, err := s.Store.R().AuditStream(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := s.Secrets.Set(ctx, streamScope, actorID, st.TokenName, secrets.Put{KeyID: in.KeyID, EncryptedValue: in.EncryptedToken}); err != nil {
		return nil, err
	}
	in.apply(st)
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateAuditStream(ctx, st); err != nil {
			return err
		}
		return s.recorded(ctx, tx, st, actorID, "update")
	})
	if err != nil {
		return nil, err
	}
	s.wake()
	return s.Store.R().AuditStream(ctx, id)
}

// Delete removes a stream and its token.
func (s *Streams) Delete(ctx context.Context, id, actorID int64) error {
	st, err := s.Store.R().AuditStream(ctx, id)
	if err != nil {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteAuditStream(ctx, id); err != nil {
			return err
		}
		return s.recorded(ctx, tx, st, actorID, "destroy")
	})
	if err != nil {
		return err
	}
	if err := s.Secrets.Delete(ctx, streamScope, actorID, st.TokenName); err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	return nil
}

// Get finds a stream.
func (s *Streams) Get(ctx context.Context, id int64) (*model.AuditStream, error) {
	return s.Store.R().AuditStream(ctx, id)
}

// List lists the streams.
func (s *Streams) List(ctx context.Context) ([]*model.AuditStream, error) {
	return s.Store.R().AuditStreams(ctx)
}

// recorded appends the change's event (an audit entry:
// audit_log_streaming.create, ...) and, for an enabled stream, queues its
// sending.
func (s *Streams) recorded(ctx context.Context, tx store.Q, st *model.AuditStream, actorID int64, verb string) error {
	if err := tx.AppendEvent(ctx, "audit_log_streaming."+verb, actorID, 0, 0, map[string]any{
		"stream_id": st.ID, "stream_type": st.Type, "enabled": st.Enabled, "domain": st.Domain}); err != nil {
		return err
	}
	if verb == "destroy" || !st.Enabled {
		return nil
	}
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobStream, Key: streamKey(st.ID), Payload: streamJob{ID: st.ID}, MaxAttempts: 20})
}

func (s *Streams) wake() {
	if s.Jobs != nil {
		s.Jobs.Notify()
	}
}

func streamKey(id int64) string { return "audit-stream:" + strconv.FormatInt(id, 10) }

type streamJob struct {
	ID int64 `json:"stream_id"`
}

// run sends one batch of a stream and queues the next pass.
func (s *Streams) run(ctx context.Context, payload []byte) error {
	var j streamJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(err)
	}
	st, err := s.Store.Background().AuditStream(ctx, j.ID)
	if errors.Is(err, model.ErrNotFound) {
		return nil // deleted: its job ends
	}
	if err != nil {
		return err
	}
	if !st.Enabled {
		return nil // paused: enabling queues it again
	}
	list, err := s.Store.Background().AuditEntriesAfter(ctx, st.CursorID, s.Batch)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		if err := s.send(ctx, st, list); err != nil {
			return err
		}
	}
	delay := s.Poll
	if len(list) == s.Batch {
		delay = 0
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if len(list) > 0 {
			moved, err := tx.MoveAuditStreamCursor(ctx, st.ID, st.CursorID, list[len(list)-1].ID)
			if err != nil || !moved {
				return err // another pass sent them: its job goes on
			}
		}
		return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobStream, Key: streamKey(st.ID), Payload: j, Delay: delay, MaxAttempts: 20})
	})
}

// StreamEvent is one entry as a stream sends it: Splunk HEC's envelope
// around the entry as the API answers it.
type StreamEvent struct {
	Time       float64        `json:"time"`
	Source     string         `json:"source"`
	SourceType string         `json:"sourcetype"`
	Event      map[string]any `json:"event"`
}

// send posts entries to the stream's endpoint as newline-separated HEC
// events, with the token as Splunk's authorization and, as webhooks are
// signed, the body's HMAC-SHA256 under the token in X-Hub-Signature-256.
func (s *Streams) send(ctx context.Context, st *model.AuditStream, list []model.AuditEntry) error {
	sec, err := s.Secrets.Get(ctx, streamScope, st.TokenName)
	if err != nil {
		return err
	}
	vals := map[string]string{}
	if err := s.Secrets.Open(ctx, []*model.Secret{sec}, vals); err != nil {
		return err
	}
	token := vals[sec.Name]
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for _, e := range list {
		if err := enc.Encode(StreamEvent{Time: float64(e.CreatedAt.UnixMilli()) / 1000, Source: "hubd", SourceType: "github:enterprise:audit", Event: Document(e, s.Business)}); err != nil {
			return err
		}
	}
	u := url.URL{Scheme: "https", Host: st.Domain + ":" + strconv.Itoa(st.Port), Path: st.Path}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body.Bytes()))
	if err != nil {
		return jobs.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hubd-audit-log-streaming")
	req.Header.Set("Authorization", "Splunk "+token)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hooks.Sign256(token, body.Bytes()))
	resp, err := s.Client(!st.SSLVerify).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("audit stream %d: %s answered %d", st.ID, u.Host, resp.StatusCode)
	}
	return nil
}
