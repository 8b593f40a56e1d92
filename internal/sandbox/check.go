package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Report is what Check found.
type Report struct {
	Mode   string // ModeBwrap or ModeNone
	Cgroup string // "v1" or "v2" when limits come from cgroups, "" for rlimits
	Note   string // one line for the operator and every job's log; a loud warning under ModeNone
}

// probeScript runs inside a probe sandbox and reports what the job would
// get. Each line is "key value".
const probeScript = `
echo "cap $(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
echo "seccomp $(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)"
if mount -t tmpfs probe "$PWD" 2>/dev/null || mount --bind / "$PWD" 2>/dev/null; then echo "mount ok"; else echo "mount refused"; fi
if (echo x > /usr/.hubd-sandbox-probe) 2>/dev/null; then rm -f /usr/.hubd-sandbox-probe; echo "system writable"; else echo "system read-only"; fi
if echo x > "$PWD/probe" && echo x > /tmp/probe; then echo "work writable"; fi
for h; do find "$h" -mindepth 1 2>/dev/null | sed 's/^/seen /'; done
`

// Check verifies, once at start, that jobs can be isolated here as cfg
// asks: it runs a probe sandbox that must show no capabilities, seccomp
// filtering, a refused mount, a read-only system and empty hidden
// directories. The error names the fix. cfg.WorkDir may be empty (a
// temporary directory stands in). Under ModeNone it verifies nothing and
// the report's Note is a warning to print at start and into every job's log.
func Check(cfg Config) (Report, error) {
	if cfg.Mode == ModeNone {
		return Report{Mode: ModeNone, Cgroup: cgroupVersionOf(cfg), Note: noneWarning}, nil
	}
	if cfg.Mode != "" && cfg.Mode != ModeBwrap {
		return Report{}, fmt.Errorf("sandbox mode %q: want bwrap or none", cfg.Mode)
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		return Report{}, errors.New("the job sandbox needs bubblewrap, which is not installed: install it (apt-get install bubblewrap, dnf install bubblewrap) or choose --actions-sandbox none explicitly")
	}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "hubd-sandbox-probe-")
		if err != nil {
			return Report{}, err
		}
		defer os.RemoveAll(dir)
		cfg.WorkDir = dir
	}
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Start(ctx, cfg, append([]string{"/bin/sh", "-c", probeScript, "probe"}, outermost(cfg.Hide)...), []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}, nil, &out, &errOut, nil)
	if err != nil {
		return Report{}, err
	}
	ex, err := p.Wait()
	if err != nil {
		return Report{}, err
	}
	if ex.Code != 0 || !strings.Contains(out.String(), "work writable") {
		return Report{}, bwrapFailure(ex.Code, errOut.String())
	}
	if err := judgeProbe(out.String(), cfg); err != nil {
		return Report{}, err
	}
	return Report{Mode: ModeBwrap, Cgroup: cgroupVersionOf(cfg), Note: p.Note()}, nil
}

func cgroupVersionOf(cfg Config) string {
	switch {
	case cfg.CgroupRoot == "":
		return ""
	case cgroupV2():
		return "v2"
	}
	return "v1"
}

// bwrapFailure explains why bubblewrap could not make a sandbox.
func bwrapFailure(code int, stderr string) error {
	msg := strings.TrimSpace(stderr)
	fix := "make bubblewrap work for this user, or choose --actions-sandbox none explicitly"
	if strings.Contains(msg, "Unknown option") || strings.Contains(msg, "unrecognized option") {
		fix = "upgrade bubblewrap to 0.8 or later (--size, --disable-userns)"
	} else if strings.Contains(msg, "namespace") || strings.Contains(msg, "uid map") || strings.Contains(msg, "Operation not permitted") {
		fix = "enable unprivileged user namespaces (sysctl user.max_user_namespaces=15000, kernel.unprivileged_userns_clone=1 on Debian kernels, kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap on Ubuntu; in a container, allow unshare(CLONE_NEWUSER) in its seccomp profile)"
	}
	return fmt.Errorf("the job sandbox does not work here (bubblewrap exit %d: %s): %s", code, msg, fix)
}

// judgeProbe fails unless the probe saw the isolation Check promises.
func judgeProbe(out string, cfg Config) error {
	got := map[string]string{}
	var seen []string
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, " ")
		if k == "seen" {
			seen = append(seen, v)
			continue
		}
		got[k] = v
	}
	if strings.Trim(got["cap"], "0") != "" || got["cap"] == "" {
		return fmt.Errorf("the job sandbox keeps capabilities (CapEff %q): this bubblewrap ignores --cap-drop; upgrade bubblewrap", got["cap"])
	}
	if got["seccomp"] != "2" {
		return fmt.Errorf("the job sandbox has no seccomp filter (Seccomp %q): the kernel needs CONFIG_SECCOMP_FILTER", got["seccomp"])
	}
	if got["mount"] != "refused" {
		return errors.New("a mount succeeded inside the job sandbox: upgrade bubblewrap and the kernel")
	}
	if got["system"] != "read-only" {
		return errors.New("the job sandbox could write to /usr: upgrade bubblewrap")
	}
	visible := append([]string{cfg.WorkDir}, cfg.ReadOnly...)
	for _, s := range seen {
		if !onPathTo(s, visible) {
			return fmt.Errorf("the job sandbox shows %s, which should be hidden", s)
		}
	}
	return nil
}

// onPathTo reports whether p is one of paths, a directory above one, or
// inside one: what a hidden tree may show.
func onPathTo(p string, paths []string) bool {
	for _, v := range paths {
		abs, err := filepath.Abs(v)
		if err != nil {
			continue
		}
		if p == abs || strings.HasPrefix(abs, p+"/") || strings.HasPrefix(p, abs+"/") {
			return true
		}
	}
	return false
}
