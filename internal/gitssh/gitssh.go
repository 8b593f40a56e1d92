// Package gitssh serves git over SSH: `git-upload-pack '/owner/repo.git'`
// and `git-receive-pack` (the path with or without its leading slash and
// .git), protocol v0 and v2 (GIT_PROTOCOL sent with SendEnv). A client
// signs in with a user's key (acting as that user) or a repository's
// deploy key; the resolver decides what it may reach and internal/gitserve
// runs git with the same push rules as smart HTTP.
package gitssh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/gitserve"
	"github.com/hubd/hubd/internal/model"
)

// Keys finds the key a client signs in with (model.ErrNotFound for an
// unknown one) and notes its use, which Flush writes (Used itself must not
// write: signing in is a read).
type Keys interface {
	Authenticate(ctx context.Context, fingerprint string) (*model.PublicKey, error)
	Used(ctx context.Context, k *model.PublicKey)
	Flush(ctx context.Context) error
}

// Resolver decides what a key may reach: the repository owner/name, for a
// push or a fetch. It returns gitserve.ErrNotFound for a repository the key
// may not see, gitserve.ErrForbidden (or a *Refusal) when it may see it but
// not push.
type Resolver func(ctx context.Context, key *model.PublicKey, owner, name string, push bool) (*gitserve.Access, error)

// Refusal is a refusal with the message the client is shown.
type Refusal struct{ Message string }

func (r *Refusal) Error() string { return r.Message }

// Server is the SSH transport.
type Server struct {
	Keys    Keys
	Resolve Resolver
	Git     *gitserve.Service
	// Greeting names who a key signs in as, for the session that asks for
	// a shell ("user" or "owner/repo").
	Greeting func(ctx context.Context, key *model.PublicKey) string
	// Fetched, when set, is told about each session that sent a pack.
	Fetched func(ctx context.Context, key *model.PublicKey, a *gitserve.Access, remote net.Addr)
	// IdleTimeout closes a connection silent this long (0: 10 minutes).
	IdleTimeout time.Duration

	srv *ssh.Server
}

// Ciphers are the ciphers the server offers. A client picks the first of
// its own list that the server offers, and OpenSSH lists
// chacha20-poly1305 first; Go implements that one without assembly on
// amd64, where it costs a clone several times the CPU of AES (AES-NI), so
// the server offers only AES: GCM, and CTR for clients without GCM.
var Ciphers = []string{
	gossh.CipherAES128GCM, gossh.CipherAES256GCM,
	gossh.CipherAES128CTR, gossh.CipherAES192CTR, gossh.CipherAES256CTR,
}

// HostKey loads the server's ed25519 host key from path, generating and
// keeping it there on the first start.
func HostKey(path string) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		block, err := gossh.MarshalPrivateKey(priv, "hubd host key")
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		b = pem.EncodeToMemory(block)
		// Nodes sharing the data directory may start at once: each writes
		// its own temporary file and links it in place, which fails for
		// all but the first; the others read the first one's key, so every
		// node presents the same host key.
		f, err := os.CreateTemp(filepath.Dir(path), ".host-key-*")
		if err != nil {
			return nil, err
		}
		tmp := f.Name()
		defer os.Remove(tmp)
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if err := os.Link(tmp, path); errors.Is(err, os.ErrExist) {
			if b, err = os.ReadFile(path); err != nil {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	return gossh.ParsePrivateKey(b)
}

// Serve accepts connections on ln until Close.
func (s *Server) Serve(ln net.Listener, hostKey gossh.Signer) error {
	idle := s.IdleTimeout
	if idle == 0 {
		idle = 10 * time.Minute
	}
	s.srv = &ssh.Server{
		Handler:     s.session,
		HostSigners: []ssh.Signer{hostKey},
		Version:     "hubd",
		IdleTimeout: idle,
		ServerConfigCallback: func(ssh.Context) *gossh.ServerConfig {
			return &gossh.ServerConfig{Config: gossh.Config{Ciphers: Ciphers}}
		},
		PublicKeyHandler: func(ctx ssh.Context, key ssh.PublicKey) bool {
			// Only "git" signs in, as at GitHub; the key says who it is.
			if ctx.User() != "git" {
				return false
			}
			_, err := s.Keys.Authenticate(ctx, gossh.FingerprintSHA256(key))
			return err == nil
		},
	}
	err := s.srv.Serve(quickAckListener{ln})
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, waits for the sessions in flight (until ctx
// ends) and writes the keys' last uses.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	err := s.srv.Shutdown(ctx)
	if ferr := s.Keys.Flush(ctx); err == nil {
		err = ferr
	}
	return err
}

// ParseCommand reads the command a git client sends: the service and the
// repository's owner and name.
func ParseCommand(args []string) (service, owner, name string, ok bool) {
	switch {
	case len(args) == 2:
		service = args[0]
	case len(args) == 3 && args[0] == "git":
		service, args = "git-"+args[1], args[1:]
	default:
		return "", "", "", false
	}
	if service != "git-upload-pack" && service != "git-receive-pack" {
		return "", "", "", false
	}
	p := strings.TrimSuffix(strings.TrimPrefix(args[1], "/"), "/")
	p = strings.TrimSuffix(p, ".git")
	owner, name, found := strings.Cut(p, "/")
	if !found || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", "", false
	}
	return service, owner, name, true
}

func (s *Server) session(sess ssh.Session) {
	ctx := sess.Context()
	// The key that authenticated: x/crypto calls the key callback again
	// for the key that signs, so the session's key is the signing one.
	pub := sess.PublicKey()
	if pub == nil {
		sess.Exit(255)
		return
	}
	key, err := s.Keys.Authenticate(ctx, gossh.FingerprintSHA256(pub))
	if err != nil {
		fmt.Fprintln(sess.Stderr(), "Permission denied (publickey).")
		sess.Exit(255)
		return
	}
	s.Keys.Used(context.WithoutCancel(ctx), key)
	if sess.RawCommand() == "" {
		who := "there"
		if s.Greeting != nil {
			who = s.Greeting(ctx, key)
		}
		fmt.Fprintf(sess.Stderr(), "Hi %s! You've successfully authenticated, but hubd does not provide shell access.\n", who)
		sess.Exit(1)
		return
	}
	service, owner, name, ok := ParseCommand(sess.Command())
	if !ok {
		fmt.Fprintf(sess.Stderr(), "Invalid command: %s\n  You appear to be using ssh to clone a git:// URL.\n  Make sure your core.gitProxy config option and the\n  GIT_PROXY_COMMAND environment variable are NOT set.\n", sess.RawCommand())
		sess.Exit(1)
		return
	}
	push := service == "git-receive-pack"
	a, err := s.Resolve(ctx, key, owner, name, push)
	if err != nil {
		var refusal *Refusal
		switch {
		case errors.As(err, &refusal):
			fmt.Fprintf(sess.Stderr(), "ERROR: %s\n", refusal.Message)
		case errors.Is(err, gitserve.ErrForbidden):
			fmt.Fprintf(sess.Stderr(), "ERROR: Permission to %s/%s.git denied.\n", owner, name)
		case errors.Is(err, gitserve.ErrNotFound), errors.Is(err, gitserve.ErrUnauthorized):
			fmt.Fprintln(sess.Stderr(), "ERROR: Repository not found.")
		default:
			slog.Error("ssh: resolve", "repo", owner+"/"+name, "err", err)
			fmt.Fprintln(sess.Stderr(), "ERROR: Internal error, try again.")
		}
		sess.Exit(1)
		return
	}
	res, err := s.Git.Serve(ctx, gitserve.Run{Access: a, Service: service, Protocol: protocol(sess.Environ()),
		In: sess, Out: sess, Stderr: sess.Stderr()})
	if err != nil {
		slog.Error("ssh: git", "repo", owner+"/"+name, "err", err)
		fmt.Fprintln(sess.Stderr(), "ERROR: Internal error, try again.")
		sess.Exit(1)
		return
	}
	if res.Fetched && s.Fetched != nil {
		s.Fetched(context.WithoutCancel(ctx), key, a, sess.RemoteAddr())
	}
	code := 0
	if res.ExitErr != nil {
		code = 1
	}
	sess.Exit(code)
}

// protocol is the GIT_PROTOCOL the client sent ("" for none).
func protocol(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_PROTOCOL="); ok {
			return v
		}
	}
	return ""
}
