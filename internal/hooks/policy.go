package hooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Policy decides which addresses deliveries may connect to. Public
// addresses are allowed; loopback, private, link-local and other special
// ranges are refused unless Allow admits them (an operator's --hook-allow,
// HUBD_HOOK_ALLOW). The address is checked when the connection is made,
// after the name was looked up, so a name that resolves to a refused
// address at delivery time is refused even if it did not when the hook was
// created.
type Policy struct {
	Allow []netip.Prefix
}

// ParsePolicy reads a comma separated list of CIDR prefixes or addresses.
func ParsePolicy(s string) (Policy, error) {
	var p Policy
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return Policy{}, fmt.Errorf("hook allow list: %q is not an address or a CIDR prefix", f)
			}
			p.Allow = append(p.Allow, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pr, err := netip.ParsePrefix(f)
		if err != nil {
			return Policy{}, fmt.Errorf("hook allow list: %q is not an address or a CIDR prefix", f)
		}
		p.Allow = append(p.Allow, pr.Masked())
	}
	return p, nil
}

// special are ranges that are not the public Internet besides those netip
// classifies (loopback, private, link-local, multicast, unspecified).
var special = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "64:ff9b::/96", "100::/64", "2001:db8::/32"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Allows reports whether deliveries may connect to a.
func (p Policy) Allows(a netip.Addr) bool {
	a = a.Unmap()
	for _, pr := range p.Allow {
		if pr.Contains(a) {
			return true
		}
	}
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, pr := range special {
		if pr.Contains(a) {
			return false
		}
	}
	return true
}

// reservedName reports names that never reach a receiver (RFC 2606 and
// 6761: example domains, .test, .invalid, .example): they are not looked
// up at all.
func reservedName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range []string{"example.com", "example.net", "example.org"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	for _, tld := range []string{".test", ".invalid", ".example"} {
		if strings.HasSuffix(h, tld) || h == tld[1:] {
			return true
		}
	}
	return false
}

var errRefused = errors.New("address refused by the webhook delivery policy")

// dialer connects only to addresses the policy allows.
func (p Policy) dialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !p.Allows(a) {
			return errRefused
		}
		return nil
	}}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if reservedName(host) {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return d.DialContext(ctx, network, addr)
	}
}
