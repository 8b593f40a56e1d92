package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hubd/hubd/internal/codespaces/ide"
	"github.com/hubd/hubd/internal/sandbox"
	"github.com/hubd/hubd/internal/server"
)

// codespacesConfig is how codespaces run: as the runner user when hubd is
// root (their workspaces are theirs; a repository's commands never run as
// hubd), in the workflow jobs' sandbox, each in a cgroup with its machine's
// limits, with code-server as their IDE unless codeServer is "none" or
// missing.
func codespacesConfig(codeServer, runnerUser, sandboxMode, dataDir, node string) (server.CodespacesConfig, error) {
	cfg := server.CodespacesConfig{Sandbox: sandboxMode}
	if os.Geteuid() == 0 {
		// The codespaces' cgroups: kept by hubd (root) alone, since the
		// codespaces all run as the runner user, who could otherwise move
		// a codespace's processes out of its limits.
		name := "codespaces"
		if node != "" {
			name += "-" + node
		}
		cg, err := sandbox.Delegate(0, 0, name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hubd: WARNING: codespaces get no cgroup, so their machine's cores are not enforced (rlimits only): %v\n", err)
		}
		cfg.Cgroups = cg
	}
	if os.Geteuid() == 0 {
		cred, err := lookupCredential(runnerUser)
		if err != nil {
			// The service refuses to run a codespace's commands as root.
			fmt.Fprintf(os.Stderr, "hubd: codespaces cannot start: --runner-user %s: %v (scripts/deps.sh creates hubd-runner)\n", runnerUser, err)
		}
		cfg.Credential = cred
		if cred != nil {
			// Workspaces live in <data>/codespaces, owned by the runner
			// user: it must pass through the data directory (not list it).
			if fi, err := os.Stat(dataDir); err == nil && fi.Mode().Perm()&0o001 == 0 {
				if err := os.Chmod(dataDir, fi.Mode().Perm()|0o001); err != nil {
					return cfg, err
				}
			}
		}
	}
	if codeServer == "none" {
		return cfg, nil
	}
	if _, err := os.Stat(codeServer); err != nil {
		fmt.Fprintf(os.Stderr, "hubd: codespaces run without a browser IDE: %v (scripts/deps.sh installs code-server; --code-server none says so)\n", err)
		return cfg, nil
	}
	bin := codeServer
	if cfg.Credential != nil {
		// The runner user cannot enter root's home, where deps.sh installs
		// code-server: it runs a shared copy (hard links).
		var err error
		if bin, err = ide.Share(codeServer, filepath.Join(os.TempDir(), "hubd-code-server")); err != nil {
			return cfg, fmt.Errorf("--code-server: %w", err)
		}
	}
	cfg.IDE = ide.New(ide.Options{Binary: bin, Sandbox: sandboxMode, Credential: cfg.Credential, Hide: []string{dataDir}})
	return cfg, nil
}

// codespacesListener opens the IDEs' own origin: addr ("auto": a free port
// of the host of hubd's listener; "none" or "": no listener, the IDEs stay
// at hubd's origin) and the URL browsers reach it by (default: hubd's
// external URL with the listener's port). web_url stays on hubd's origin,
// which hands the owner over to wherever the IDEs are served now.
func codespacesListener(addr, external string, hubd net.Addr, hubdURL string) (net.Listener, string, error) {
	switch addr {
	case "", "none":
		if external != "" {
			return nil, "", fmt.Errorf("--codespaces-url needs --codespaces-addr")
		}
		return nil, "", nil
	case "auto":
		host, _, err := net.SplitHostPort(hubd.String())
		if err != nil {
			return nil, "", err
		}
		addr = net.JoinHostPort(host, "0")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--codespaces-addr %s: %w (another address, or none)", addr, err)
	}
	return codespacesURL(ln, external, hubdURL)
}

// codespacesURL is the URL of the IDEs' listener ln: external, else hubd's
// URL with ln's port.
func codespacesURL(ln net.Listener, external, hubdURL string) (net.Listener, string, error) {
	if external != "" {
		u, err := url.Parse(external)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			ln.Close()
			return nil, "", fmt.Errorf("--codespaces-url %q: want an http:// or https:// URL", external)
		}
		return ln, strings.TrimSuffix(external, "/"), nil
	}
	u, err := url.Parse(hubdURL)
	if err != nil {
		ln.Close()
		return nil, "", err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return ln, u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port), nil
}

// releaseCodespaceCgroups removes the codespaces' groups and the delegated
// cgroup holding them (hubd's shutdown, after the IDEs stopped).
func releaseCodespaceCgroups(root string) {
	if root == "" {
		return
	}
	for _, name := range sandbox.GroupNames(root) {
		if err := sandbox.RemoveGroup(root, name); err != nil {
			fmt.Fprintf(os.Stderr, "hubd: %v\n", err)
		}
	}
	if err := sandbox.Undelegate(root); err != nil {
		fmt.Fprintf(os.Stderr, "hubd: %v\n", err)
	}
}
