package model

import "time"

// Job is one piece of background work in the durable queue.
type Job struct {
	ID          int64
	Kind        string // the handler that runs it
	Key         string // dedup key: "" never deduplicates
	Payload     []byte // JSON
	Attempts    int
	MaxAttempts int // 0: the default (5)
	RunAt       time.Time
	CreatedAt   time.Time
}
