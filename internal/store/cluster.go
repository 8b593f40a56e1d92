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
//
// A notification arrives after the write was answered, so alone it would
// let a read on another node right after the write hit a stale cache entry
// (a few milliseconds, measured). Strict read-your-writes comes from two
// database-side generations, sequences bumped by the same statement that
// notifies (genWrites after a write, genBroadcasts after a broadcast),
// before the write is answered: every request first calls Sync, which
// reads both (one query, shared by the requests that arrive while it is on
// its way: see genSync) and invalidates the cache, or runs every topic,
// when one moved since the last look. A write answered before a request
// began has bumped its generation before the request's Sync read it, so no
// cache entry loaded before that write survives into the request.

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

	sync genSync
	lax  atomic.Bool // StrictReads(false)
}

// The generation sequences (created by migrate on PostgreSQL).
const (
	genWrites     = "hubd_write_generation"
	genBroadcasts = "hubd_broadcast_generation"
)

// genSync shares the generation check between concurrent requests, as a
// group commit does: at most one check is on its way; a request that
// arrives meanwhile waits for the next one (the one on its way may have
// read the generations before the request began, so it proves nothing to
// it), which every request arriving before it starts joins.
type genSync struct {
	mu      sync.Mutex
	running bool      // a check is on its way
	next    *genRound // the round that starts when it ends
	writes  int64     // the generations as last seen
	bcasts  int64
	checks  atomic.Int64 // checks made (tests, benchmarks)
}

type genRound struct {
	done chan struct{}
	err  error
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
	if _, err := s.write.ExecContext(context.WithoutCancel(ctx), `SELECT pg_notify($1, $2), nextval('`+genWrites+`')`, s.cl.channel, s.cl.node+":"+kind); err != nil {
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
	if _, err := s.write.ExecContext(context.WithoutCancel(ctx), `SELECT pg_notify($1, $2), nextval('`+genBroadcasts+`')`, s.cl.channel, s.cl.node+":t:"+topic); err != nil {
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
	// start from a clean cache, and from the generations as they are now.
	w, b, err := s.readGenerations(ctx)
	if err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("store: listen for other nodes: %w", err)
	}
	s.cl.sync.mu.Lock()
	s.cl.sync.writes, s.cl.sync.bcasts = w, b
	s.cl.sync.mu.Unlock()
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

// readGenerations reads the two generation sequences (0 before their first
// bump). A sequence read as a relation shows the other sessions' nextval
// at once: sequences are not transactional.
func (s *Store) readGenerations(ctx context.Context) (writes, bcasts int64, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT
  (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+genWrites+`),
  (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+genBroadcasts+`)`).Scan(&writes, &bcasts)
	return writes, bcasts, err
}

// Sync makes this node's caches answer as the database does now: every
// write and broadcast of any node answered before Sync was called is
// reflected in what the caches give afterwards. The server calls it at the
// start of every request (PostgreSQL with Listen; nothing otherwise). It
// costs one query per round, shared by the requests that wait for it; on
// an error the caches are emptied and the error returned.
func (s *Store) Sync(ctx context.Context) error {
	if !s.pg || s.cl == nil || !s.cl.started.Load() || s.cl.lax.Load() {
		return nil
	}
	g := &s.cl.sync
	g.mu.Lock()
	if g.next == nil {
		g.next = &genRound{done: make(chan struct{})}
	}
	r := g.next
	if !g.running {
		g.running, g.next = true, nil
		go s.syncRounds(r)
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// syncRounds runs round r, then the rounds that gathered meanwhile, until
// none waits.
func (s *Store) syncRounds(r *genRound) {
	g := &s.cl.sync
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		w, b, err := s.readGenerations(ctx)
		cancel()
		g.checks.Add(1)
		g.mu.Lock()
		wmoved, bmoved := err != nil || w != g.writes, err != nil || b != g.bcasts
		if err == nil {
			g.writes, g.bcasts = w, b
		}
		g.mu.Unlock()
		if wmoved {
			s.cache.invalidate()
		}
		if bmoved {
			s.runAllTopics()
		}
		if err != nil {
			r.err = fmt.Errorf("store: read the cluster's generations: %w", err)
		}
		close(r.done)
		g.mu.Lock()
		r = g.next
		if r == nil {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.next = nil
		g.mu.Unlock()
	}
}

// StrictReads turns Sync's check on (the default) or off: off, another
// node's write reaches this node's caches only by its notification, which
// may arrive after the client's next read (hubd serve --strict-reads=false;
// bench/cluster.sh measures what the check costs).
func (s *Store) StrictReads(on bool) { s.cl.lax.Store(!on) }

// SyncChecks counts the generation checks Sync made (tests, benchmarks).
func (s *Store) SyncChecks() int64 { return s.cl.sync.checks.Load() }
