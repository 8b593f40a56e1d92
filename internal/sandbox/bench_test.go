package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// The start overhead a job pays: `true` sandboxed (with and without a
// cgroup) against a plain exec. The issue allows 150 ms.

func BenchmarkPlainExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkSandbox(b *testing.B, cgroup bool) {
	f := &fixture{data: b.TempDir()}
	f.work = f.data
	if cgroup {
		root, err := Delegate(0, 0, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer Undelegate(root)
		f.cgroup = root
	}
	cfg := Config{WorkDir: f.work, CgroupRoot: f.cgroup}
	for b.Loop() {
		p, err := Start(context.Background(), cfg, []string{"/bin/true"}, nil, nil, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if ex, err := p.Wait(); err != nil || ex.Code != 0 {
			b.Fatal(ex, err)
		}
	}
}

func BenchmarkSandboxRlimits(b *testing.B) { benchmarkSandbox(b, false) }
func BenchmarkSandboxCgroup(b *testing.B)  { benchmarkSandbox(b, true) }
