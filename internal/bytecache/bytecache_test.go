package bytecache

import "testing"

func TestBounds(t *testing.T) {
	c := New[string](10, 4)
	c.Put("a", []byte("1234"))
	c.Put("big", []byte("12345")) // over maxEntry: not kept
	if _, ok := c.Get("big"); ok {
		t.Fatal("an entry over maxEntry was kept")
	}
	c.Put("a", []byte("12")) // replacing counts only the new size
	c.Put("b", []byte("1234"))
	c.Put("c", []byte("1234"))
	if b, ok := c.Get("a"); !ok || string(b) != "12" {
		t.Fatalf("a = %q %v", b, ok)
	}
	c.Put("d", []byte("1234")) // 2+4+4+4 > 10: starts over
	if _, ok := c.Get("a"); ok {
		t.Fatal("the cache did not start over past maxBytes")
	}
	if b, ok := c.Get("d"); !ok || string(b) != "1234" {
		t.Fatalf("d = %q %v", b, ok)
	}
}
