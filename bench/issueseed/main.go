// Command issueseed fills a repository with issues straight through the
// store, for the issues benchmark: labels, milestones and assignees like a
// busy project's, inserted in bulk (store.SeedIssues) rather than by API
// calls.
//
//	issueseed -data DIR -repo acme/big -n 100000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hubd/hubd/bench/seedrepo"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func main() {
	data := flag.String("data", "./hubd-data", "hubd's data directory (SQLite)")
	database := flag.String("database", os.Getenv("HUBD_DATABASE"), "postgres:// URL instead of SQLite")
	repoName := flag.String("repo", "acme/big", "OWNER/NAME of an existing repository")
	n := flag.Int("n", 100000, "issues to create")
	batch := flag.Int("batch", 10000, "issues per transaction")
	flag.Parse()
	ctx := context.Background()
	st, v := seedrepo.Open(ctx, *data, *database, *repoName)
	defer st.Close()
	repo := v.Repo
	start := time.Now()

	// Ten users who may be assigned, ten milestones, the default labels and
	// a few more.
	var users []*model.Account
	var labels []int64
	var milestones []int64
	err := st.Tx(ctx, func(tx store.Q) error {
		for i := 0; i < 10; i++ {
			u := &model.Account{Login: fmt.Sprintf("dev%d-%d", i, repo.ID), Type: model.TypeUser}
			if err := tx.CreateAccount(ctx, u); err != nil {
				return err
			}
			if err := tx.SetCollaborator(ctx, repo.ID, u.ID, authz.Write); err != nil {
				return err
			}
			users = append(users, u)
		}
		for _, l := range []string{"area/api", "area/ui", "priority/high", "priority/low", "size/S", "size/L"} {
			lab := &model.Label{RepoID: repo.ID, Name: l, Color: "c5def5"}
			if err := tx.CreateLabel(ctx, lab); err != nil {
				return err
			}
		}
		list, _, err := tx.ListLabels(ctx, repo.ID, 100, 0)
		if err != nil {
			return err
		}
		for _, l := range list {
			labels = append(labels, l.ID)
		}
		for i := 1; i <= 10; i++ {
			due := time.Date(2026, time.Month(i), 1, 0, 0, 0, 0, time.UTC)
			m := &model.Milestone{RepoID: repo.ID, Title: fmt.Sprintf("v%d.0", i), State: "open", DueOn: &due, CreatorID: repo.OwnerID}
			if err := tx.CreateMilestone(ctx, m); err != nil {
				return err
			}
			milestones = append(milestones, m.ID)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	base := time.Now().UTC().Add(-time.Duration(*n) * time.Minute).Truncate(time.Second)
	for done := 0; done < *n; done += *batch {
		size := min(*batch, *n-done)
		list := make([]*store.SeedIssue, 0, size)
		for k := 0; k < size; k++ {
			i := done + k
			body := fmt.Sprintf("Steps to reproduce issue %d:\n\n1. open the page\n2. click **save**\n\nExpected it to work.", i)
			s := &store.SeedIssue{Issue: model.Issue{
				Title:  fmt.Sprintf("Issue %d: something is not right in component %d", i, i%37),
				Body:   &body,
				UserID: users[i%len(users)].ID,
			}}
			s.CreatedAt = base.Add(time.Duration(i) * time.Minute)
			s.UpdatedAt = s.CreatedAt
			if i%10 == 9 {
				s.State = "closed"
				reason := "completed"
				s.StateReason, s.ClosedAt, s.ClosedByID = &reason, &s.CreatedAt, repo.OwnerID
			}
			s.LabelIDs = []int64{labels[i%len(labels)], labels[(i/3+5)%len(labels)]}
			if s.LabelIDs[0] == s.LabelIDs[1] {
				s.LabelIDs = s.LabelIDs[:1]
			}
			s.AssigneeIDs = []int64{users[(i+1)%len(users)].ID}
			if i%3 == 0 {
				s.AssigneeIDs = append(s.AssigneeIDs, users[(i+4)%len(users)].ID)
			}
			if i%2 == 0 {
				s.MilestoneID = milestones[i%len(milestones)]
			}
			list = append(list, s)
		}
		if err := st.Tx(ctx, func(tx store.Q) error { return tx.SeedIssues(ctx, repo.ID, list) }); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("seeded %d issues into %s in %s\n", *n, repo.FullName(), time.Since(start).Round(time.Millisecond))
}
