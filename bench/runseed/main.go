// Command runseed fills a repository with completed workflow runs straight
// through the store, for the Actions benchmark (bench/actions.sh): each run
// of one workflow, at the repository's head commit, by the repository's
// owner, alternating success and failure.
//
//	runseed -data DIR -repo acme/ci -n 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hubd/hubd/bench/seedrepo"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func main() {
	data := flag.String("data", "./hubd-data", "hubd's data directory (SQLite and git)")
	database := flag.String("database", os.Getenv("HUBD_DATABASE"), "postgres:// URL instead of SQLite")
	repoName := flag.String("repo", "acme/ci", "OWNER/NAME of an existing repository with a pushed default branch")
	n := flag.Int("n", 10000, "runs to create")
	batch := flag.Int("batch", 2000, "runs per transaction")
	flag.Parse()
	ctx := context.Background()
	st, v := seedrepo.Open(ctx, *data, *database, *repoName)
	defer st.Close()
	repo := v.Repo
	mgr, err := gitrepo.New(filepath.Join(*data, "git"))
	if err != nil {
		log.Fatal(err)
	}
	defer mgr.Close()
	head, err := mgr.Open(repo.ID).ResolveRef(ctx, "refs/heads/"+repo.DefaultBranch)
	if err != nil {
		log.Fatalf("head of %s: %v", repo.DefaultBranch, err)
	}
	start := time.Now()
	branch := repo.DefaultBranch
	for done := 0; done < *n; {
		err := st.Tx(ctx, func(tx store.Q) error {
			wf, err := tx.EnsureWorkflow(ctx, repo.ID, ".github/workflows/seeded.yml", "Seeded")
			if err != nil {
				return err
			}
			for i := 0; i < *batch && done+i < *n; i++ {
				c := model.ConclusionSuccess
				if (done+i)%2 == 1 {
					c = model.ConclusionFailure
				}
				run := &model.WorkflowRun{RepoID: repo.ID, WorkflowID: wf.ID, WorkflowPath: wf.Path, Name: "Seeded", DisplayTitle: fmt.Sprintf("seeded run %d", done+i+1),
					Event: "push", Status: model.ActionsCompleted, Conclusion: &c, HeadBranch: &branch, Ref: "refs/heads/" + branch, HeadSHA: head,
					ActorID: repo.OwnerID, TriggeringActorID: repo.OwnerID, Source: "name: Seeded\non: push\n"}
				if err := tx.CreateRun(ctx, run); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
		done += min(*batch, *n-done)
	}
	fmt.Printf("seeded %d runs into %s in %s\n", *n, repo.FullName(), time.Since(start).Round(time.Millisecond))
}
