package enterprise

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Innersource vulnerabilities: the enterprise's own advisory set, synced
// from OSV records a client sends (up to 100 a call). A sync is validated,
// stored and queued on the durable job queue; the job creates, updates or
// withdraws each vulnerability by its OSV id, giving new ones a GHIS id,
// and records the result the status endpoint answers.

const jobInnersourceSync = "enterprise.innersource_sync"

// Syncer runs innersource vulnerability syncs on a job queue.
type Syncer struct {
	st   *store.Store
	jobs *jobs.Queue
}

// NewSyncer makes the syncer and registers its job (q nil: syncs are
// queued but run by another process's queue).
func NewSyncer(st *store.Store, q *jobs.Queue) *Syncer {
	s := &Syncer{st: st, jobs: q}
	if q != nil {
		q.Handle(jobInnersourceSync, s.run)
	}
	return s
}

const vulnResource = "InnersourceVulnerability"

// SyncResult is a finished sync's answer.
type SyncResult struct {
	Processed int          `json:"processed"`
	Created   int          `json:"created"`
	Updated   int          `json:"updated"`
	Withdrawn int          `json:"withdrawn"`
	Errors    int          `json:"errors"`
	Results   []VulnResult `json:"results"`
}

// VulnResult is one vulnerability's outcome.
type VulnResult struct {
	ExternalID string `json:"external_id"`
	Status     string `json:"status"`
	GHSAID     string `json:"ghsa_id,omitempty"`
	Error      string `json:"error,omitempty"`
}

// osvHead is what a sync reads of an OSV record.
type osvHead struct {
	ID        string `json:"id"`
	Withdrawn string `json:"withdrawn"`
}

// StartSync validates vulns (1 to 100 OSV records, each with an id, no id
// twice) and queues their sync; the answer is the job id.
func (s *Syncer) StartSync(ctx context.Context, actorID int64, vulns []json.RawMessage) (string, error) {
	if len(vulns) == 0 {
		return "", model.Invalid(vulnResource, "vulnerabilities", "missing_field")
	}
	if len(vulns) > 100 {
		return "", model.Custom(vulnResource, "vulnerabilities", "vulnerabilities may hold at most 100 items")
	}
	seen := map[string]bool{}
	for i, raw := range vulns {
		var h osvHead
		if err := json.Unmarshal(raw, &h); err != nil || h.ID == "" {
			return "", model.Custom(vulnResource, "vulnerabilities", "vulnerabilities["+strconv.Itoa(i)+"] must be an OSV object with an id")
		}
		if seen[h.ID] {
			return "", model.Custom(vulnResource, "vulnerabilities", "vulnerability "+h.ID+" is given twice")
		}
		seen[h.ID] = true
	}
	payload, err := json.Marshal(vulns)
	if err != nil {
		return "", err
	}
	id := "external-vulnerability-sync-" + newUUID()
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateVulnSync(ctx, &store.VulnSync{ID: id, Status: "queued", Payload: string(payload), ActorID: actorID}); err != nil {
			return err
		}
		if err := jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobInnersourceSync, Key: id, Payload: map[string]string{"id": id}}); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "enterprise_innersource_sync.queued", actorID, 0, 0, map[string]any{"id": id, "count": len(vulns)})
	})
	if err != nil {
		return "", err
	}
	if s.jobs != nil {
		s.jobs.Notify()
	}
	return id, nil
}

// SyncStatus is a sync operation: its status ("queued", "processing",
// "done", "error") and, once done, its result; ErrNotFound for an unknown
// id.
func (s *Syncer) SyncStatus(ctx context.Context, id string) (status string, result *SyncResult, errMsg string, err error) {
	v, err := s.st.R().VulnSyncByID(ctx, id)
	if err != nil {
		return "", nil, "", err
	}
	switch v.Status {
	case "done":
		result = &SyncResult{}
		if err := json.Unmarshal([]byte(v.Result), result); err != nil {
			return "", nil, "", err
		}
	case "error":
		errMsg = v.Result
	}
	return v.Status, result, errMsg, nil
}

// run is the sync job: it applies every vulnerability of the sync in one
// transaction and records the result.
func (s *Syncer) run(ctx context.Context, payload []byte) error {
	var p struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return jobs.Permanent(err)
	}
	sync, err := s.st.R().VulnSyncByID(ctx, p.ID)
	if errors.Is(err, model.ErrNotFound) {
		return jobs.Permanent(err)
	}
	if err != nil {
		return err
	}
	if sync.Status == "done" || sync.Status == "error" {
		return nil
	}
	if err := s.setStatus(ctx, p.ID, "processing", ""); err != nil {
		return err
	}
	var vulns []json.RawMessage
	if err := json.Unmarshal([]byte(sync.Payload), &vulns); err != nil {
		return jobs.Permanent(s.setStatus(ctx, p.ID, "error", "The stored vulnerabilities cannot be read"))
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		ids := make([]string, 0, len(vulns))
		heads := make([]osvHead, len(vulns))
		for i, raw := range vulns {
			_ = json.Unmarshal(raw, &heads[i])
			ids = append(ids, heads[i].ID)
		}
		have, err := tx.InnersourceVulns(ctx, ids)
		if err != nil {
			return err
		}
		res := SyncResult{Results: []VulnResult{}}
		for i, raw := range vulns {
			h := heads[i]
			res.Processed++
			old := have[h.ID]
			v := &store.InnersourceVuln{ExternalID: h.ID, OSV: string(raw), Withdrawn: h.Withdrawn != ""}
			out := VulnResult{ExternalID: h.ID}
			switch {
			case v.Withdrawn && old == nil:
				out.Status, out.Error = "error", "No innersource vulnerability "+h.ID+" to withdraw"
				res.Errors++
				res.Results = append(res.Results, out)
				continue
			case v.Withdrawn:
				v.GHISID, out.Status = old.GHISID, "withdrawn"
				res.Withdrawn++
			case old != nil:
				v.GHISID, out.Status = old.GHISID, "updated"
				res.Updated++
			default:
				v.GHISID, out.Status = newGHISID(), "created"
				res.Created++
			}
			if err := tx.PutInnersourceVuln(ctx, v); err != nil {
				return err
			}
			out.GHSAID = v.GHISID
			res.Results = append(res.Results, out)
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		if err := tx.SetVulnSyncStatus(ctx, p.ID, "done", string(b)); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "enterprise_innersource_sync.done", sync.ActorID, 0, 0, map[string]any{"id": p.ID,
			"created": res.Created, "updated": res.Updated, "withdrawn": res.Withdrawn, "errors": res.Errors})
	})
}

func (s *Syncer) setStatus(ctx context.Context, id, status, result string) error {
	return s.st.Tx(ctx, func(tx store.Q) error { return tx.SetVulnSyncStatus(ctx, id, status, result) })
}

// ghisAlphabet is the alphabet of GHSA-shaped ids' groups.
const ghisAlphabet = "23456789cfghjmpqrvwx"

// newGHISID is a random innersource advisory id: "GHIS-" and three groups
// of four.
func newGHISID() string {
	b := []byte("GHIS-xxxx-xxxx-xxxx")
	for i := 5; i < len(b); i++ {
		if b[i] == '-' {
			continue
		}
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(ghisAlphabet))))
		if err != nil {
			panic(err)
		}
		b[i] = ghisAlphabet[n.Int64()]
	}
	return string(b)
}

// newUUID is a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}
