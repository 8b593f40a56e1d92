package hooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// jobDeliver sends the pending deliveries of one hook, oldest first. Its
// key is the hook's, so one hook's deliveries go out one at a time and in
// order, while different hooks are served by different workers. A failed
// delivery's retry waits for its backoff without holding back the hook's
// later deliveries (GitHub does not promise an order either). A job that
// finds nothing due ends, queued again for the earliest waiting retry.
const jobDeliver = "hooks.deliver"

type deliverJob struct {
	HookID int64 `json:"hook_id"`
}

func deliverKey(hookID int64) string { return jobDeliver + ":" + strconv.FormatInt(hookID, 10) }

// enqueueDeliver queues the delivery job of a hook in tx, so that a crash
// after the commit still leaves the deliveries a job.
func enqueueDeliver(ctx context.Context, tx store.Q, hookID int64) error {
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobDeliver, Key: deliverKey(hookID), Payload: deliverJob{HookID: hookID}})
}

const (
	// Timeout is how long a receiver has to answer, as on GitHub.
	Timeout = 10 * time.Second
	// maxResponse is the most of a response body a delivery keeps.
	maxResponse = 64 << 10
	// jobBudget bounds the time one job sends for: well inside the
	// queue's lease, even when the last delivery takes the whole timeout.
	jobBudget = 60 * time.Second
	// flushEvery is how many waiting deliveries one pass reads.
	flushEvery = 50
)

// Interrupted is the delivery log's status of a delivery whose sending
// began (recorded before it was sent) in a hubd process that stopped before
// it recorded what happened: the receiver may or may not have got it. It
// is not sent again on its own (a delivery goes out at most once
// automatically); a redelivery sends it again.
const Interrupted = "the hubd process stopped during this delivery"

// runDeliver is the job handler. Deliveries are marked begun in a
// committed transaction before they are sent, in small batches (the same
// transaction records what sending the batch before gave); a delivery
// found begun and not recorded is recorded as Interrupted instead of being
// sent again. A batch is as many deliveries as the receiver took about
// batchWindow to answer last time (one for a slow receiver), so a crash
// leaves at most that much marked interrupted that had not gone out yet;
// a batch stops early, and gives its unsent deliveries back, when the
// receiver does not answer or the job's time is up.
func (s *Service) runDeliver(ctx context.Context, payload []byte) error {
	var j deliverJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(err)
	}
	start := time.Now()
	size := 1
	for {
		h, err := s.Store.R().HookByID(ctx, j.HookID)
		if errors.Is(err, model.ErrNotFound) {
			return nil // deleted with its deliveries
		}
		if err != nil {
			return err
		}
		list, err := s.Store.R().PendingHookDeliveries(ctx, h.ID, flushEvery)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return s.wakeForRetry(ctx, h.ID)
		}
		// done waits for the next transaction: interrupted deliveries
		// first, then the ones sent, the last of which (last) gives the
		// hook's last response; unsent were begun and not sent.
		var done, unsent, todo []*model.HookDelivery
		last := ""
		for _, d := range list {
			if d.StartedAt.IsZero() {
				todo = append(todo, d)
				continue
			}
			d.Status, d.StatusCode, d.DeliveredAt = Interrupted, 0, d.StartedAt
			d.RequestHeaders, d.ResponseHeaders = map[string]string{}, map[string]string{}
			slog.Warn("webhook delivery interrupted by a stop: not sent again", "hook", h.ID, "delivery", d.GUID, "event", d.Event)
			done = append(done, d)
		}
		record := func(next []*model.HookDelivery) (started []*model.HookDelivery, err error) {
			err = s.Store.Tx(ctx, func(tx store.Q) error {
				started = started[:0]
				if len(done) > 0 {
					if err := tx.RecordHookDeliveries(ctx, h.ID, done, last); err != nil {
						return err
					}
					if err := s.queueRetries(ctx, tx, done); err != nil {
						return err
					}
				}
				for _, d := range unsent {
					if err := tx.UnstartHookDelivery(ctx, d.ID); err != nil {
						return err
					}
				}
				if len(next) == 0 {
					return nil
				}
				ids := make([]int64, len(next))
				for i, d := range next {
					ids[i] = d.ID
				}
				ok, err := tx.StartHookDeliveries(ctx, ids)
				for _, d := range next {
					if ok[d.ID] {
						started = append(started, d)
					} // else another worker has it
				}
				return err
			})
			done, unsent, last = nil, nil, ""
			return started, err
		}
		for len(todo) > 0 {
			n := min(size, len(todo))
			batch, err := record(todo[:n])
			if err != nil {
				return err
			}
			todo = todo[n:]
			began := time.Now()
			for i, d := range batch {
				last = s.send(ctx, h, d)
				done = append(done, d)
				if d.StatusCode == 0 || time.Since(start) > jobBudget {
					// No answer (the next would likely wait as long) or
					// out of time: the rest of the batch waits.
					unsent = batch[i+1:]
					break
				}
			}
			size = batchSize(time.Since(began), len(done))
			if time.Since(start) > jobBudget {
				if _, err := record(nil); err != nil {
					return err
				}
				// The rest goes to a job of its own: this one must end
				// within its lease.
				return s.Jobs.Enqueue(ctx, jobs.Job{Kind: jobDeliver, Key: deliverKey(h.ID), Payload: deliverJob{HookID: h.ID}})
			}
		}
		if len(done) > 0 || len(unsent) > 0 {
			if _, err := record(nil); err != nil {
				return err
			}
		}
	}
}

// batchWindow is about how long the deliveries of one batch take to send.
const batchWindow = 50 * time.Millisecond

// batchSize is the next batch's size after n deliveries took took.
func batchSize(took time.Duration, n int) int {
	if n == 0 {
		return 1
	}
	per := took / time.Duration(n)
	if per <= 0 {
		return flushEvery
	}
	return max(1, min(flushEvery, int(batchWindow/per)))
}

// Attempts is how many times hubd sends a delivery that fails (no
// answer within Timeout, or an answer other than 2xx) before it gives up:
// the first attempt and Attempts-1 automatic retries. GitHub does not
// retry on its own; hubd does, and shows every retry in the delivery log
// as GitHub shows a redelivery (same GUID, redelivery true).
const Attempts = 5

// RetryBackoff is the wait before the retry that follows attempt n (1, 2,
// ...): the job queue's backoff times 15, so 15 s, 1 min, 4 min, 16 min.
func RetryBackoff(n int) time.Duration { return 15 * jobs.Backoff(n) }

// queueRetries queues the next attempt of each failed delivery in done
// that has attempts left, due after its backoff; the hook's delivery job
// is queued to run then (or earlier, for other deliveries). Waiting
// retries of a delivery that got through are dropped.
func (s *Service) queueRetries(ctx context.Context, tx store.Q, done []*model.HookDelivery) error {
	var first time.Duration
	var ok []string
	for _, d := range done {
		if d.Status == "OK" {
			if d.Redelivery {
				// Only a redelivery can have retries of its GUID waiting.
				ok = append(ok, d.GUID)
			}
			continue
		}
		if d.Attempt >= Attempts || d.Status == Interrupted {
			continue // an interrupted attempt is not retried blindly
		}
		wait := RetryBackoff(max(d.Attempt, 1))
		next := &model.HookDelivery{HookID: d.HookID, PayloadID: d.PayloadID, GUID: d.GUID, Event: d.Event, Action: d.Action,
			RepoID: d.RepoID, InstallationID: d.InstallationID, Redelivery: true, Attempt: max(d.Attempt, 1) + 1,
			RetryAt: tx.Now().Add(wait)}
		if err := tx.InsertHookDelivery(ctx, next); err != nil {
			return err
		}
		if first == 0 || wait < first {
			first = wait
		}
	}
	// A delivery that got through (a redelivery by hand) needs no retry.
	if err := tx.CancelHookRetries(ctx, done[0].HookID, ok); err != nil {
		return err
	}
	if first == 0 {
		return nil
	}
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobDeliver, Key: deliverKey(done[0].HookID), Payload: deliverJob{HookID: done[0].HookID}, Delay: first})
}

// wakeForRetry queues the hook's delivery job for its earliest retry that
// is not due yet, if any (a job that ran for other deliveries left it).
func (s *Service) wakeForRetry(ctx context.Context, hookID int64) error {
	at, ok, err := s.Store.R().NextHookRetry(ctx, hookID)
	if err != nil || !ok {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobDeliver, Key: deliverKey(hookID), Payload: deliverJob{HookID: hookID},
			Delay: max(at.Sub(tx.Now()), time.Second)})
	})
}

// userAgent is the User-Agent of deliveries, as GitHub's Hookshot names
// itself with its version.
func (s *Service) userAgent() string {
	v := s.Version
	if v == "" {
		v = "hubd"
	}
	return "GitHub-Hookshot/" + v
}

// send posts one delivery and fills in what happened; it returns the
// hook's last response message.
func (s *Service) send(ctx context.Context, h *model.Hook, d *model.HookDelivery) string {
	body, ctype := d.Payload, "application/json"
	if h.ContentType == "form" {
		body, ctype = []byte("payload="+url.QueryEscape(string(d.Payload))), "application/x-www-form-urlencoded"
	}
	hdr := map[string]string{
		"Accept":                                 "*/*",
		"Content-Type":                           ctype,
		"User-Agent":                             s.userAgent(),
		"X-GitHub-Delivery":                      d.GUID,
		"X-GitHub-Event":                         d.Event,
		"X-GitHub-Hook-ID":                       strconv.FormatInt(h.ID, 10),
		"X-GitHub-Hook-Installation-Target-ID":   strconv.FormatInt(h.TargetID(), 10),
		"X-GitHub-Hook-Installation-Target-Type": h.TargetType(),
		"X-GitHub-Enterprise-Version":            EnterpriseVersion,
		"X-GitHub-Enterprise-Host":               s.host(),
	}
	if h.Secret != "" {
		hdr["X-Hub-Signature"] = "sha1=" + Sign1(h.Secret, body)
		hdr["X-Hub-Signature-256"] = "sha256=" + Sign256(h.Secret, body)
	}
	d.RequestHeaders = hdr
	d.ResponseHeaders, d.ResponseBody, d.StatusCode = map[string]string{}, nil, 0
	began := time.Now()
	d.DeliveredAt = s.Store.Now()
	defer func() { d.Duration = time.Since(began) }()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		d.Status = "Invalid URL"
		return d.Status
	}
	for k, v := range hdr {
		req.Header[k] = []string{v}
	}
	client := s.client
	if h.InsecureSSL == "1" {
		client = s.insecure
	}
	resp, err := client.Do(req)
	if err != nil {
		d.Status = failure(err)
		slog.Info("webhook delivery failed", "hook", h.ID, "delivery", d.GUID, "event", d.Event, "err", err)
		return d.Status
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	text := string(b)
	d.ResponseBody = &text
	for k, v := range resp.Header {
		d.ResponseHeaders[k] = strings.Join(v, ", ")
	}
	d.StatusCode = resp.StatusCode
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		d.Status = "OK"
	} else {
		d.Status = "Invalid HTTP Response: " + strconv.Itoa(resp.StatusCode)
	}
	return d.Status
}

// failure words a delivery that got no answer as GitHub's delivery log
// does.
func failure(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, errRefused):
		return "failed to connect to host: the address is not allowed for webhooks"
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "failed to connect to host"
	}
	var te *tls.CertificateVerificationError
	if errors.As(err, &te) {
		return "Peer certificate cannot be authenticated with given CA certificates"
	}
	return "failed to connect to host"
}

// EnterpriseVersion is the X-GitHub-Enterprise-Version of deliveries (hubd
// answers as GitHub Enterprise Server).
const EnterpriseVersion = "3.19.0"

func (s *Service) host() string {
	u, err := url.Parse(s.URLs.Web)
	if err != nil {
		return "localhost"
	}
	return u.Hostname()
}

// Sign256 is the hex HMAC-SHA256 of body with secret
// (X-Hub-Signature-256 carries it after "sha256=").
func Sign256(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Sign1 is the hex HMAC-SHA1 of body with secret (X-Hub-Signature, kept
// for receivers that predate SHA-256).
func Sign1(secret string, body []byte) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// newClients makes the delivery clients: they never follow redirects, use
// no proxy from the environment, connect only where the policy allows, and
// give up after Timeout.
func newClients(p Policy) (*http.Client, *http.Client) {
	mk := func(insecure bool) *http.Client {
		tr := &http.Transport{
			DialContext:           p.dialer(Timeout),
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          64,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   Timeout,
			ResponseHeaderTimeout: Timeout,
		}
		if insecure {
			tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the hook's insecure_ssl "1"
		}
		return &http.Client{Transport: tr, Timeout: Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return mk(false), mk(true)
}
