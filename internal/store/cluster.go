package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Several hubd processes (nodes) may share one PostgreSQL database. Each
// keeps in-process read caches that a commit of its own invalidates at once
// (readCache.gen); the commits of the other nodes reach it through
// PostgreSQL's LISTEN/NOTIFY: every write transaction that invalidates the
// cache is followed, before it is answered, by a notification on the
// database's channel (notifyCommitted), and each node's listener bumps its
// own generation when another node's arrives. Other in-process state that a
// write elsewhere makes stale (the authentication cache, verified
// signatures) is flushed by topic: Broadcast on one node runs the
// OnBroadcast functions of the others. While a node's listener is not
// connected its read cache is off, so that it never serves what it may
// have missed.
//
// Payloads are "NODE:w" (a write), "NODE:e" (a write that appended domain
// events: the outbox consumers wake) and "NODE:t:TOPIC" (a broadcast).

// cluster is a store's share of that (PostgreSQL only).
type cluster struct {
	node    string // this store's random id, to ignore its own notifications
	channel string // the notification channel: one per database schema

	mu     sync.Mutex
	topics map[string][]func()

	listening atomic.Bool // the listener is connected and LISTENing
	started   atomic.Bool
	stop      context.CancelFunc
	done      chan struct{}
	received  atomic.Int64 // notifications of other nodes taken in (tests)
}

func newNodeID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// initCluster names the channel of the store's schema (PostgreSQL).
func (s *Store) initCluster(ctx context.Context) error {
	s.cl = &cluster{node: newNodeID(), topics: map[string][]func(){}}
	if !s.pg {
		return nil
	}
	var schema string
	if err := s.write.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("store: current schema: %w", err)
	}
	s.cl.channel = "hubd_writes_" + schema
	if len(s.cl.channel) > 63 {
		s.cl.channel = s.cl.channel[:63]
	}
	return nil
}

// Node is this store's node id (a random name of the process's store).
func (s *Store) Node() string { return s.cl.node }

// notifyCommitted tells the other nodes that a write transaction of this
// one committed (PostgreSQL; nothing on SQLite, whose one file has one
// server). It is sent after the commit, before the write is answered, in a
// statement of its own: a NOTIFY inside the write transaction would make
// PostgreSQL serialize the commits of all such transactions, their WAL
// flushes included (a global lock held to the end of the commit), which
// cost a write-heavy load most of its throughput in a measurement here. A
// node that dies between the commit and this leaves the others' caches
// stale for at most the caches' maximum age (2 s).
func (s *Store) notifyCommitted(ctx context.Context, events bool) {
	if !s.pg || s.cl == nil || s.cl.channel == "" {
		return
	}
	kind := "w"
	if events {
		kind = "e"
	}
	if _, err := s.write.ExecContext(context.WithoutCancel(ctx), `SELECT pg_notify($1, $2)`, s.cl.channel, s.cl.node+":"+kind); err != nil {
		slog.Warn("store: notify the other nodes of a write", "err", err)
	}
}

// OnBroadcast registers f (it must not block), run when another node
// broadcasts topic, and when this node's listener reconnects (it may have
// missed one meanwhile).
func (s *Store) OnBroadcast(topic string, f func()) {
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	s.cl.topics[topic] = append(s.cl.topics[topic], f)
}

// Broadcast tells the other nodes on the database to run their OnBroadcast
// functions of topic (PostgreSQL; nothing on SQLite). Call it after the
// write that makes their state stale has committed.
func (s *Store) Broadcast(ctx context.Context, topic string) {
	if !s.pg || s.cl.channel == "" {
		return
	}
	if _, err := s.write.ExecContext(ctx, `SELECT pg_notify($1, $2)`, s.cl.channel, s.cl.node+":t:"+topic); err != nil {
		slog.Warn("store: broadcast", "topic", topic, "err", err)
	}
}

func (s *Store) runTopic(topic string) {
	s.cl.mu.Lock()
	fns := append([]func(){}, s.cl.topics[topic]...)
	s.cl.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

func (s *Store) runAllTopics() {
	s.cl.mu.Lock()
	var fns []func()
	for _, l := range s.cl.topics {
		fns = append(fns, l...)
	}
	s.cl.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// Listen starts taking in the notifications of the other nodes on the
// database (PostgreSQL; on SQLite it does nothing). It returns once the
// first connection listens, or with its error; afterwards a lost connection
// is made again, the read cache staying off until it is. hubd serve calls
// it; Close stops it.
func (s *Store) Listen(ctx context.Context, dsn string) error {
	if !s.pg {
		return nil
	}
	if !s.cl.started.CompareAndSwap(false, true) {
		return errors.New("store: Listen called twice")
	}
	d, err := ParseDSN(dsn)
	if err != nil {
		return err
	}
	conn, err := s.listenConn(ctx, d.URL)
	if err != nil {
		s.cl.started.Store(false)
		return err
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.cl.stop, s.cl.done = cancel, make(chan struct{})
	go s.listenLoop(lctx, d.URL, conn)
	return nil
}

func (s *Store) listenConn(ctx context.Context, url string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("store: listen for other nodes: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.cl.channel}.Sanitize()); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("store: listen for other nodes: %w", err)
	}
	// Whatever the other nodes wrote before this point is unknown here:
	// start from a clean cache.
	s.cache.invalidate()
	s.cl.listening.Store(true)
	s.cache.off.Store(false)
	return conn, nil
}

func (s *Store) listenLoop(ctx context.Context, url string, conn *pgx.Conn) {
	defer close(s.cl.done)
	backoff := 100 * time.Millisecond
	for {
		for conn != nil {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				s.cl.listening.Store(false)
				s.cache.off.Store(true)
				s.cache.invalidate()
				conn.Close(context.Background())
				conn = nil
				if ctx.Err() != nil {
					return
				}
				slog.Warn("store: lost the connection that listens for other nodes' writes; read caches are off until it is back", "err", err)
				break
			}
			backoff = 100 * time.Millisecond
			s.notified(n.Payload)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, err := s.listenConn(cctx, url)
		cancel()
		if err != nil {
			continue
		}
		conn = c
		slog.Info("store: listening for other nodes' writes again")
		s.runAllTopics() // anything broadcast meanwhile was missed
	}
}

// notified takes in one notification.
func (s *Store) notified(payload string) {
	node, kind, ok := strings.Cut(payload, ":")
	if !ok || node == s.cl.node {
		return
	}
	s.cl.received.Add(1)
	switch {
	case kind == "w":
		s.cache.invalidate()
	case kind == "e":
		s.cache.invalidate()
		s.committedMu.Lock()
		fns := s.committed
		s.committedMu.Unlock()
		for _, f := range fns {
			f()
		}
	case strings.HasPrefix(kind, "t:"):
		s.runTopic(kind[2:])
	}
}

// stopListening ends the listener (Close).
func (s *Store) stopListening() {
	if s.cl != nil && s.cl.stop != nil {
		s.cl.stop()
		<-s.cl.done
	}
}

// Received counts the notifications of other nodes this store took in.
func (s *Store) Received() int64 { return s.cl.received.Load() }
