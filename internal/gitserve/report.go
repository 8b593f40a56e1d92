package gitserve

import (
	"bytes"
	"strconv"
)

// Declined is a PushCheck error that refuses a push with a reason of
// its own for each refused ref: git shows "! [remote rejected] ref -> ref
// (Reason)", as GitHub's refusals read, instead of receive-pack's
// "pre-receive hook declined"; Message, when set, is shown before, line
// by line after "remote: ".
type Declined struct {
	Message, Reason string
}

func (d *Declined) Error() string { return "push declined: " + d.Reason }

// hookDeclined is receive-pack's reason for the refs a failed pre-receive
// hook refused.
const hookDeclined = "pre-receive hook declined"

// reportFilter passes receive-pack's output through (pkt-lines, in
// side-band channels or not) and, once the push check declined the push
// with a reason, puts it in place of hookDeclined in the report-status
// lines. Output it cannot read as pkt-lines passes through unchanged.
type reportFilter struct {
	check *pushCheck
	buf   []byte
	plain bool
}

// feed takes a chunk of output and answers what may be sent now.
func (f *reportFilter) feed(b []byte) []byte {
	if f.plain {
		return b
	}
	f.buf = append(f.buf, b...)
	var out []byte
	for len(f.buf) >= 4 {
		size, err := strconv.ParseUint(string(f.buf[:4]), 16, 16)
		if err != nil || size != 0 && size < 4 {
			f.plain = true
			break
		}
		if size == 0 {
			size = 4 // flush
		}
		if int(size) > len(f.buf) {
			return out // the rest of the packet is still to come
		}
		out = append(out, f.packet(f.buf[:size])...)
		f.buf = f.buf[size:]
	}
	if f.plain {
		out, f.buf = append(out, f.buf...), nil
	}
	return out
}

// packet rewrites one pkt-line of the report.
func (f *reportFilter) packet(p []byte) []byte {
	payload := p[4:]
	if !bytes.Contains(payload, []byte(hookDeclined)) {
		return p
	}
	reason := f.reason()
	if reason == "" {
		return p
	}
	if len(payload) > 0 && payload[0] == 1 { // side-band channel 1: pkt-lines
		inner, ok := rewriteReport(payload[1:], reason)
		if !ok {
			return p
		}
		return pktLine("\x01" + string(inner))
	}
	if line, ok := rewriteLine(string(payload), reason); ok {
		return pktLine(line)
	}
	return p
}

// reason is the check's reason for declining ("" when it gave none); the
// report comes after the hook ran, so the check has answered by then.
func (f *reportFilter) reason() string {
	if f.check == nil {
		return ""
	}
	<-f.check.done
	return f.check.reason
}

// rewriteReport rewrites the report-status pkt-lines of one side-band
// packet; false when they are not whole pkt-lines.
func rewriteReport(b []byte, reason string) ([]byte, bool) {
	var out []byte
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, false
		}
		size, err := strconv.ParseUint(string(b[:4]), 16, 16)
		if err != nil || size != 0 && (size < 4 || int(size) > len(b)) {
			return nil, false
		}
		if size == 0 {
			out, b = append(out, "0000"...), b[4:]
			continue
		}
		if line, ok := rewriteLine(string(b[4:size]), reason); ok {
			out = append(out, pktLine(line)...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out, true
}

// rewriteLine turns "ng <ref> pre-receive hook declined" into "ng <ref>
// <reason>".
func rewriteLine(line, reason string) (string, bool) {
	rest, ok := bytes.CutPrefix([]byte(line), []byte("ng "))
	if !ok {
		return "", false
	}
	ref, why, ok := bytes.Cut(bytes.TrimRight(rest, "\n"), []byte(" "))
	if !ok || string(why) != hookDeclined {
		return "", false
	}
	return "ng " + string(ref) + " " + reason + "\n", true
}
