package gitrepo

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestGitDBInfoManyChunks(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	var revs []string
	for i := 0; i < 3*infoChunk+7; i++ {
		oid, err := r.WriteObject(ctx, "blob", []byte(fmt.Sprint("blob ", i)))
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, oid)
		if i%100 == 0 {
			revs = append(revs, ZeroOID, "not a name", "bad\nname")
		}
	}
	infos, err := r.InfoMany(ctx, revs)
	if err != nil {
		t.Fatal(err)
	}
	for i, info := range infos {
		switch revs[i] {
		case ZeroOID, "not a name", "bad\nname":
			if info.Type != "" {
				t.Fatalf("%q resolved to %+v", revs[i], info)
			}
		default:
			if info.OID != revs[i] || info.Type != "blob" || info.Size == 0 {
				t.Fatalf("%d: %+v", i, info)
			}
		}
	}
	// The process is still in step.
	if info, err := r.Info(ctx, revs[0]); err != nil || info.OID != revs[0] {
		t.Fatalf("after InfoMany: %+v %v", info, err)
	}
}

func TestGitDBCatStreamStopsEarly(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	small := []byte("small blob\n")
	big := make([]byte, 3<<20)
	rand.Read(big)
	smallID, _ := r.WriteObject(ctx, "blob", small)
	bigID, _ := r.WriteObject(ctx, "blob", big)
	for i := 0; i < 3; i++ {
		// Whole, partly read (the rest skipped), barely read (the process dropped).
		for _, n := range []int64{-1, 100, 10} {
			for _, c := range []struct {
				id   string
				data []byte
			}{{smallID, small}, {bigID, big}} {
				var got []byte
				err := r.CatStream(ctx, c.id, func(info ObjectInfo, rd io.Reader) error {
					if info.Size != int64(len(c.data)) || info.Type != "blob" {
						t.Fatalf("info %+v", info)
					}
					if n < 0 {
						got, _ = io.ReadAll(rd)
						return nil
					}
					got, _ = io.ReadAll(io.LimitReader(rd, n))
					return errors.New("stop")
				})
				if n < 0 && (err != nil || !bytes.Equal(got, c.data)) {
					t.Fatalf("whole read: %v", err)
				}
				if n >= 0 && (err == nil || !bytes.Equal(got, c.data[:min(int(n), len(c.data))])) {
					t.Fatalf("partial read: %v", err)
				}
			}
		}
	}
	if err := r.CatStream(ctx, ZeroOID, func(ObjectInfo, io.Reader) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing object: %v", err)
	}
	if _, data, err := r.Read(ctx, smallID, 0); err != nil || !bytes.Equal(data, small) {
		t.Fatalf("read after streams: %v", err)
	}
}

func TestGitDBLsTree(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	blob, _ := r.WriteObject(ctx, "blob", []byte("hello\n"))
	inner, _ := EncodeTree([]TreeEntry{{Mode: "100644", Name: "b.txt", OID: blob}, {Mode: "160000", Name: "mod", OID: blob}})
	innerID, _ := r.WriteObject(ctx, "tree", inner)
	outer, _ := EncodeTree([]TreeEntry{{Mode: "040000", Name: "dir", OID: innerID}, {Mode: "100755", Name: "run sh\tx", OID: blob}})
	outerID, _ := r.WriteObject(ctx, "tree", outer)

	var all []string
	err := r.LsTree(ctx, outerID, true, func(e LsTreeEntry) bool {
		all = append(all, fmt.Sprintf("%s %s %d %s", e.Mode, e.Type, e.Size, e.Path))
		return true
	})
	want := "040000 tree -1 dir|100644 blob 6 dir/b.txt|160000 commit -1 dir/mod|100755 blob 6 run sh\tx"
	if err != nil || gitdbJoin(all) != want {
		t.Fatalf("recursive: %v\n%s", err, gitdbJoin(all))
	}
	all = nil
	if err := r.LsTree(ctx, outerID, false, func(e LsTreeEntry) bool { all = append(all, e.Path); return true }); err != nil || gitdbJoin(all) != "dir|run sh\tx" {
		t.Fatalf("top level: %v %v", all, err)
	}
	n := 0
	if err := r.LsTree(ctx, outerID, true, func(LsTreeEntry) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Fatalf("early stop: %d %v", n, err)
	}
	if err := r.LsTree(ctx, blob, false, func(LsTreeEntry) bool { return true }); err == nil {
		t.Fatal("listing a blob")
	}
}

func gitdbJoin(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(x)
	}
	return b.String()
}
