package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSlowSendersDoNotLockOut runs the in-flight lockout attack: four connections
// from one address announce 64 MiB bodies (together the whole default in-flight
// budget) and send a byte a second, reconnecting when cut. The valid requests of
// another address must all succeed meanwhile (no 503), the attacker's bodies must
// be cut by the minimum rate with 408 or refused by its per-client share with 503,
// and nothing may stay reserved.
func TestSlowSendersDoNotLockOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an attack for several seconds")
	}
	s := New(Config{Concurrency: 2, Client: ClientLimits{BodyGrace: time.Second}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(ln)
	defer hs.Close()
	attacker := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	if c, err := attacker.Dial("tcp", ln.Addr().String()); err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	} else {
		c.Close()
	}
	url := "http://" + ln.Addr().String() + "/score"
	glb := tube(t, 0)
	alone := validRequests(t, url, glb, 100, 0)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				o := trickle(attacker, ln.Addr().String(), stop)
				mu.Lock()
				outcomes[o]++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // the attackers hold their reservations
	attacked := validRequests(t, url, glb, 20, 4*time.Second)
	close(stop)
	wg.Wait()
	t.Logf("valid alone: %v; under attack: %v (p99 %.1f× alone's); attacker outcomes: %v", alone, attacked,
		float64(attacked.p99)/float64(max(alone.p99, time.Millisecond)), outcomes)
	if outcomes["408"] == 0 {
		t.Errorf("no slow body was cut by the minimum rate: %v", outcomes)
	}
	for o := range outcomes {
		if o != "408" && o != "503" && o != "stopped" {
			t.Errorf("an attacking connection ended with %q", o)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.InFlightBytes() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.InFlightBytes(); n != 0 {
		t.Errorf("%d body bytes still reserved", n)
	}
}

// latencies summarizes a run of valid requests.
type latencies struct {
	n             int
	p50, p99, max time.Duration
}

func (l latencies) String() string {
	return fmt.Sprintf("%d requests, p50 %v, p99 %v, max %v", l.n, l.p50, l.p99, l.max.Round(time.Millisecond))
}

// validRequests posts glb at least n times and for at least d, failing t on any
// answer but 200. Each request is marked idempotent, as validLoad's are.
func validRequests(t *testing.T, url string, glb []byte, n int, d time.Duration) latencies {
	t.Helper()
	var lat []time.Duration
	start := time.Now()
	for len(lat) < n || time.Since(start) < d {
		t0 := time.Now()
		req, err := http.NewRequest("POST", url, bytes.NewReader(glb))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "model/gltf-binary")
		req.Header.Set("Idempotency-Key", fmt.Sprint("valid-", len(lat)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("valid request %d: %v", len(lat), err)
		}
		var msg strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&msg)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("valid request %d: %d %s", len(lat), resp.StatusCode, msg.String())
		}
		lat = append(lat, time.Since(t0))
	}
	p50, p99 := quantiles(lat)
	return latencies{n: len(lat), p50: p50, p99: p99, max: slicesMax(lat)}
}

func slicesMax(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = max(m, x)
	}
	return m
}

// trickle opens a connection that announces a 64 MiB body and sends a byte a
// second until the server answers (its status) or stop closes ("stopped").
func trickle(d *net.Dialer, addr string, stop <-chan struct{}) string {
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return "dial error"
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: model/gltf-binary\r\nContent-Length: %d\r\n\r\n", 64<<20)
	answer := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			answer <- "closed without an answer"
			return
		}
		resp.Body.Close()
		answer <- fmt.Sprint(resp.StatusCode)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case a := <-answer:
			return a
		case <-stop:
			return "stopped"
		case <-tick.C:
			c.Write([]byte{0})
		}
	}
}
