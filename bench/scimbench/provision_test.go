package scimbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
)

// Groups is how many groups BenchmarkSCIMProvision pushes, each with
// Users/Groups members.
const Groups = 500

// BenchmarkSCIMProvision provisions Users identities and then Groups
// groups (20 members each) through the SCIM API over real HTTP, with four
// concurrent clients as an identity provider's provisioning agent runs,
// and reports the whole run's time. The control, in the same run, is the
// same number of plain authenticated requests (GET /user): compare the
// ratio, not the numbers.
//
//	HUBD_TEST_DATABASE=postgres://... go test ./bench/scimbench -run '^$' -bench SCIMProvision -benchtime 1x
//
// Goal: under 2 minutes on PostgreSQL. Measured 2026-11-29 on the 2-core
// development machine (shared): 86 s (users 77 s, groups 9 s), 4.3 times
// the control's 20 s.
func BenchmarkSCIMProvision(b *testing.B) {
	for range b.N {
		e := apitest.New(b)
		tok := e.Token(e.Admin, "scim:enterprise")
		const base = "/scim/v2/enterprises/hubd"
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		call := func(method, path string, body any) (int, []byte, error) {
			var rd io.Reader
			if body != nil {
				buf, _ := json.Marshal(body)
				rd = bytes.NewReader(buf)
			}
			req, _ := http.NewRequest(method, e.URL+path, rd)
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/scim+json")
			resp, err := client.Do(req)
			if err != nil {
				return 0, nil, err
			}
			defer resp.Body.Close()
			out, err := io.ReadAll(resp.Body)
			return resp.StatusCode, out, err
		}
		// run calls fn(i) for i in [0, n) on four workers; the first
		// failure stops it.
		run := func(n int, fn func(i int) error) (time.Duration, error) {
			start := time.Now()
			var next atomic.Int64
			var wg sync.WaitGroup
			var first atomic.Value
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1) - 1)
						if i >= n || first.Load() != nil {
							return
						}
						if err := fn(i); err != nil {
							first.CompareAndSwap(nil, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if err, _ := first.Load().(error); err != nil {
				return 0, err
			}
			return time.Since(start), nil
		}

		ids := make([]string, Users)
		users, err := run(Users, func(i int) error {
			name := fmt.Sprintf("user%05d@example.com", i)
			code, body, err := call("POST", base+"/Users", map[string]any{
				"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, "userName": name, "externalId": fmt.Sprintf("ext-%05d", i),
				"name":   map[string]any{"givenName": "User", "familyName": fmt.Sprint(i)},
				"emails": []any{map[string]any{"value": name, "type": "work", "primary": true}}, "active": true})
			if err != nil || code != 201 {
				return fmt.Errorf("create user %d: %d %v %s", i, code, err, body)
			}
			var u struct{ ID string }
			if err := json.Unmarshal(body, &u); err != nil {
				return err
			}
			ids[i] = u.ID
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		per := Users / Groups
		groups, err := run(Groups, func(g int) error {
			members := make([]any, per)
			for j := range per {
				members[j] = map[string]any{"value": ids[g*per+j]}
			}
			code, body, err := call("POST", base+"/Groups", map[string]any{
				"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"}, "displayName": fmt.Sprintf("group-%03d", g),
				"externalId": fmt.Sprintf("gext-%03d", g), "members": members})
			if err != nil || code != 201 {
				return fmt.Errorf("create group %d: %d %v %s", g, code, err, body)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		control, err := run(Users+Groups, func(int) error {
			code, body, err := call("GET", "/user", nil)
			if err != nil || code != 200 {
				return fmt.Errorf("GET /user: %d %v %s", code, err, body)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		total := users + groups
		b.ReportMetric(total.Seconds(), "s-provision")
		b.ReportMetric(users.Seconds(), "s-users")
		b.ReportMetric(groups.Seconds(), "s-groups")
		b.ReportMetric(control.Seconds(), "s-control")
		b.ReportMetric(total.Seconds()/control.Seconds(), "x-control")
	}
}
