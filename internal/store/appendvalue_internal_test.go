package store

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestAppendValueIsFmtV(t *testing.T) {
	for _, v := range []any{nil, []byte("a\x00b"), "héllo", int64(-42), int64(math.MaxInt64), 0.1, 1e21, 3.0, -0.0, math.Inf(1), true, false, time.Unix(5, 0).UTC()} {
		if got, want := string(appendValue(nil, v)), fmt.Sprintf("%v", func() any {
			if b, ok := v.([]byte); ok {
				return string(b)
			}
			return v
		}()); got != want {
			t.Errorf("%T %v: %q, want %q", v, v, got, want)
		}
	}
}
