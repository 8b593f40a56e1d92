// Command projectseed makes a Projects (v2) project of an organization
// for the projects benchmark, straight through the store: ten custom
// fields (text, number, date, single select) and N draft items with a
// value of every field, in a few transactions. It prints the project's
// number, its field ids and a token with the project scope for LOGIN.
//
//	projectseed -data DIR -org acme -login admin -n 5000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/store"
)

func main() {
	data := flag.String("data", "./hubd-data", "hubd's data directory (SQLite)")
	database := flag.String("database", os.Getenv("HUBD_DATABASE"), "postgres:// URL instead of SQLite")
	orgLogin := flag.String("org", "acme", "an existing organization")
	login := flag.String("login", "", "an owner of the organization")
	n := flag.Int("n", 5000, "items")
	flag.Parse()
	ctx := context.Background()
	dsn := *database
	if dsn == "" {
		dsn = *data + "/hubd.db"
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	org, err := st.R().OrgByLogin(ctx, *orgLogin)
	if err != nil {
		log.Fatalf("organization %s: %v", *orgLogin, err)
	}
	u, err := st.R().AccountByLogin(ctx, *login)
	if err != nil {
		log.Fatalf("user %s: %v", *login, err)
	}
	start := time.Now()
	svc := projects.New(st)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: u, Scopes: authz.ParseScopes("project")}
	p, err := svc.Create(ctx, c, org, "Benchmark")
	if err != nil {
		log.Fatal(err)
	}
	var fields []*model.ProjectField
	for i := range 10 {
		typ := []string{"text", "number", "date", "single_select"}[i%4]
		in := projects.FieldInput{Name: fmt.Sprintf("Field %d", i), DataType: typ}
		if typ == "single_select" {
			in.Options = []model.ProjectOption{{Name: "one"}, {Name: "two"}, {Name: "three"}}
		}
		f, err := svc.CreateField(ctx, c, p, in)
		if err != nil {
			log.Fatal(err)
		}
		fields = append(fields, f)
	}
	const batch = 1000
	for done := 0; done < *n; done += batch {
		err := st.Tx(ctx, func(tx store.Q) error {
			for i := done; i < min(done+batch, *n); i++ {
				it := &model.ProjectItem{ProjectID: p.ID, ContentType: "DraftIssue", DraftTitle: fmt.Sprintf("item %d", i), DraftBody: "body", CreatorID: u.ID}
				if err := tx.AddProjectItem(ctx, it); err != nil {
					return err
				}
				for j, f := range fields {
					v := &model.ProjectValue{ItemID: it.ID, FieldID: f.ID}
					switch f.DataType {
					case "text":
						v.Text = fmt.Sprintf("text %d/%d", i, j)
					case "number":
						x := float64(i*10 + j)
						v.Number = &x
					case "date":
						v.Text = "2026-06-01"
					case "single_select":
						v.Text = f.Options[i%3].ID
					}
					if err := tx.SetProjectValue(ctx, v); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	all, err := st.R().ProjectFields(ctx, p.ID)
	if err != nil {
		log.Fatal(err)
	}
	ids := make([]string, len(all))
	for i, f := range all {
		ids[i] = fmt.Sprint(f.ID)
	}
	var tok string
	if err := st.Tx(ctx, func(tx store.Q) error {
		tok, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, authz.ParseScopes("project,repo"), "projects benchmark", nil)
		return err
	}); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "seeded %d items x %d fields in %s\n", *n, len(fields), time.Since(start).Round(time.Millisecond))
	fmt.Printf("number: %d\nfields: %s\ntoken: %s\n", p.Number, strings.Join(ids, ","), tok)
}
