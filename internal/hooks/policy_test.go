package hooks

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/randid"
)

func TestPolicyAllows(t *testing.T) {
	none := Policy{}
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"8.8.8.8", true}, {"2606:4700::1111", true}, {"127.0.0.1", false}, {"::1", false}, {"10.0.0.1", false},
		{"172.16.3.4", false}, {"192.168.1.1", false}, {"169.254.169.254", false}, {"100.64.0.1", false},
		{"0.0.0.0", false}, {"::ffff:127.0.0.1", false}, {"fd00::1", false}, {"224.0.0.1", false},
	} {
		if got := none.Allows(netip.MustParseAddr(c.addr)); got != c.ok {
			t.Errorf("Allows(%s) = %v, want %v", c.addr, got, c.ok)
		}
	}
	p, err := ParsePolicy("127.0.0.0/8, 10.1.0.0/16,::1")
	if err != nil {
		t.Fatal(err)
	}
	for addr, ok := range map[string]bool{"127.0.0.5": true, "10.1.2.3": true, "10.2.0.1": false, "::1": true} {
		if got := p.Allows(netip.MustParseAddr(addr)); got != ok {
			t.Errorf("allow list: Allows(%s) = %v", addr, got)
		}
	}
	if _, err := ParsePolicy("10.0.0.0/33"); err == nil {
		t.Error("a bad prefix parsed")
	}
	if _, err := ParsePolicy("nonsense"); err == nil {
		t.Error("a bad address parsed")
	}
}

// The address is checked when the connection is made: a name resolving
// to a refused address is refused at delivery time, whatever it was when
// the hook was created; reserved example names are never looked up.
func TestDialerChecksResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	strict, _ := newClients(Policy{})
	if _, err := strict.Get("http://localhost:" + port + "/"); !errors.Is(err, errRefused) {
		t.Errorf("localhost with no allow list: %v", err)
	}
	if _, err := strict.Get(srv.URL); !errors.Is(err, errRefused) {
		t.Errorf("127.0.0.1 with no allow list: %v", err)
	}
	open, _ := newClients(Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	resp, err := open.Get("http://localhost:" + port + "/")
	if err != nil {
		t.Fatalf("allowed loopback: %v", err)
	}
	resp.Body.Close()
	_, err = open.Get("http://hooks.example.com/x")
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound {
		t.Errorf("example.com: %v", err)
	}
	if got := failure(err); got != "failed to connect to host" {
		t.Errorf("failure(%v) = %q", err, got)
	}
}

func TestGUIDAndSignatures(t *testing.T) {
	g := randid.UUID()
	if len(g) != 36 || g[14] != '4' || strings.Count(g, "-") != 4 {
		t.Errorf("GUID %q", g)
	}
	// GitHub's documented example: secret "It's a Secret to Everybody",
	// payload "Hello, World!".
	if got := Sign256("It's a Secret to Everybody", []byte("Hello, World!")); got != "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" {
		t.Errorf("Sign256 = %s", got)
	}
}
