package serve

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestLargeBodiesLeaveASlot: with two scoring slots, a large body holding one
// makes a second large body wait for it, while a small body still gets the other.
func TestLargeBodiesLeaveASlot(t *testing.T) {
	s := New(Config{Concurrency: 2})
	large := context.WithValue(context.Background(), largeBody{}, true)
	hold, held := make(chan struct{}), make(chan struct{})
	go s.withSlot(large, "first large", func() error {
		close(held)
		<-hold
		return nil
	})
	<-held
	defer close(hold)
	for _, tc := range []struct {
		name       string
		ctx        context.Context
		wantStatus int
	}{
		{"second large", large, http.StatusServiceUnavailable},
		{"small", context.Background(), http.StatusOK},
	} {
		ctx, cancel := context.WithTimeout(tc.ctx, 200*time.Millisecond)
		status, err := s.withSlot(ctx, tc.name, func() error { return nil })
		cancel()
		if status != tc.wantStatus {
			t.Errorf("%s: status %d (%v), want %d", tc.name, status, err, tc.wantStatus)
		}
	}
}
