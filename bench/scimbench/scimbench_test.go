// Package scimbench times SCIM's lookups at 10,000 provisioned users: the
// filter an identity provider sends before every create or update
// (GET .../Users?filter=userName eq "x"), through the SCIM service (filter
// parsing, the count, the page, the groups of the page), against the
// plain lookup of an account by login on the same store in the same run
// (compare the ratio, not the numbers).
//
//	go test ./bench/scimbench -bench . -run '^$'
//	HUBD_TEST_DATABASE=postgres://... go test ./bench/scimbench -bench . -run '^$'
//
// Goal: the userName filter under 5 ms.
package scimbench

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/scim"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// Users is how many identities the seed provisions.
const Users = 10_000

// seed writes the identities straight through the store, 500 a
// transaction.
func seed(ctx context.Context, st *store.Store) error {
	for start := 0; start < Users; start += 500 {
		err := st.Tx(ctx, func(tx store.Q) error {
			for i := start; i < start+500; i++ {
				a := &model.Account{Login: fmt.Sprintf("user%05d", i), Type: model.TypeUser}
				if err := tx.CreateAccount(ctx, a); err != nil {
					return err
				}
				u := &model.SCIMUser{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), UserID: a.ID, Login: a.Login,
					ExternalID: fmt.Sprintf("ext-%05d", i), UserName: fmt.Sprintf("user%05d@example.com", i), Active: true,
					Emails: []model.SCIMEmail{{Value: fmt.Sprintf("user%05d@example.com", i), Type: "work", Primary: true}}, Roles: []string{"user"}}
				if err := tx.CreateSCIMUser(ctx, u); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkSCIMUsers(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	if err := seed(ctx, st); err != nil {
		b.Fatal(err)
	}
	svc := scim.New(st)
	ms := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	}
	one := func(filter string) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				list, total, err := svc.Users(ctx, filter, 1, 30)
				if err == nil && (total != 1 || len(list) != 1) {
					err = fmt.Errorf("%d of %d, want 1 of 1", len(list), total)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			ms(b)
		}
	}
	b.Run("filter-userName", one(`userName eq "user07777@example.com"`))
	b.Run("filter-externalId", one(`externalId eq "ext-04321"`))
	b.Run("page-100", func(b *testing.B) {
		for b.Loop() {
			if list, _, err := svc.Users(ctx, "", 5001, 100); err != nil || len(list) != 100 {
				b.Fatalf("%d %v", len(list), err)
			}
		}
		ms(b)
	})
	// startIndex 1 and 9,900 of 10,000 (count 100): a deep page must not
	// cost more than the first.
	for _, start := range []int{1, 9901} {
		b.Run(fmt.Sprintf("startIndex-%d", start), func(b *testing.B) {
			for b.Loop() {
				list, _, err := svc.Users(ctx, "", start, 100)
				if err == nil && (len(list) != 100 || list[0].UserName != fmt.Sprintf("user%05d@example.com", start-1)) {
					err = fmt.Errorf("%d users, first %v", len(list), list)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			ms(b)
		})
	}
	b.Run("control-AccountByLogin", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.R().AccountByLogin(ctx, "user07777"); err != nil {
				b.Fatal(err)
			}
		}
		ms(b)
	})
}
