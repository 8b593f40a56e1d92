package gitserve

import (
	"bytes"
	"testing"
)

// TestReportFilter: a declined push's reason replaces "pre-receive hook
// declined" in the report, in side-band packets or plain pkt-lines, however
// the output is cut; other output and other pushes pass unchanged.
func TestReportFilter(t *testing.T) {
	report := func(reason string) string {
		return string(pktLine("unpack ok\n")) + string(pktLine("ng refs/heads/main "+reason+"\n")) +
			string(pktLine("ok refs/heads/other\n")) + "0000"
	}
	progress := string(pktLine("\x02remote: checking\n"))
	sideband := func(reason string) string {
		return progress + string(pktLine("\x01"+report(reason))) + "0000"
	}
	const why = "refusing to allow a Personal Access Token to create or update workflow `.github/workflows/x.yml` without `workflow` scope"
	for _, tc := range []struct {
		name, in, want, reason string
	}{
		{"side-band", sideband(hookDeclined), sideband(why), why},
		{"plain", report(hookDeclined), report(why), why},
		{"no reason", sideband(hookDeclined), sideband(hookDeclined), ""},
		{"not pkt-lines", "garbage " + hookDeclined, "garbage " + hookDeclined, why},
	} {
		for _, step := range []int{1, 3, 7, 1 << 10} {
			check := &pushCheck{done: make(chan struct{}), reason: tc.reason}
			close(check.done)
			f := &reportFilter{check: check}
			var out bytes.Buffer
			for i := 0; i < len(tc.in); i += step {
				out.Write(f.feed([]byte(tc.in[i:min(i+step, len(tc.in))])))
			}
			out.Write(f.buf)
			if out.String() != tc.want {
				t.Errorf("%s, chunks of %d:\n%q\nwant\n%q", tc.name, step, out.String(), tc.want)
			}
		}
	}
}
