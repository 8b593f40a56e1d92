// Command genrepo writes a git fast-import stream of a synthetic history
// (commits touching files of random, incompressible content) so benchmarks
// can build a large repository quickly:
//
//	genrepo -commits 2000 -mb 110 | git -C big.git fast-import --quiet
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

func main() {
	commits := flag.Int("commits", 2000, "number of commits")
	mb := flag.Int("mb", 110, "total megabytes of file content")
	files := flag.Int("files", 400, "distinct file paths")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	rng := rand.New(rand.NewPCG(1, 2))
	per := (*mb << 20) / *commits
	buf := make([]byte, per)
	for i := 1; i <= *commits; i++ {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n", i, len(buf))
		w.Write(buf)
		fmt.Fprintf(w, "\ncommit refs/heads/main\nmark :%d\n", *commits+i)
		fmt.Fprintf(w, "author Bench <bench@example.com> %d +0000\ncommitter Bench <bench@example.com> %d +0000\n", 1_600_000_000+i*60, 1_600_000_000+i*60)
		msg := fmt.Sprintf("commit %d", i)
		fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
		if i > 1 {
			fmt.Fprintf(w, "from :%d\n", *commits+i-1)
		}
		fmt.Fprintf(w, "M 100644 :%d dir%d/file%d.bin\n\n", i, i%20, i%*files)
	}
}
