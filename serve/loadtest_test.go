package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hostileConfig is the service the hostile load test runs: small limits so that the
// hostile clients reach every one of them quickly.
var hostileConfig = Config{
	MaxBodyBytes:     16 << 20,
	MaxInFlightBytes: 64 << 20,
	Concurrency:      2,
	CacheBytes:       64 << 20,
	Timeout:          60 * time.Second,
	Conn:             ConnTimeouts{ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second},
	ErrorLog:         log.New(io.Discard, "", 0),
}

// hostileHeapBound is the stated bound on the live heap during the hostile load
// test: the body budget twice (bodies and what is parsed from them), the cache, and
// 64 MiB for everything else (tokenizer, scoring, clients).
const hostileHeapBound = 2*(64<<20) + (64 << 20) + (64 << 20)

// TestHostileLoad runs the service on a loopback listener with valid clients (a
// rigged GLB to /score, every 4th a mesh and token stream to /score/tokens) and,
// at the same time, hostile ones from 127.0.0.2: clients dribbling a byte every 50 ms into bodies
// announced at 4 MiB, amplification GLBs (2,000 nodes on one 10k-vertex mesh), and
// 100 MB bodies with and without Content-Length. Every valid request must succeed
// (a 503 is retried after Retry-After and counted; see validLoad), /healthz must
// answer 200 throughout, and the live heap must stay under hostileHeapBound. 120 valid
// requests; 1000 with RIGKIT_FULL=1, whose figures docs/hardening.md reports.
func TestHostileLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile load test skipped with -short")
	}
	nValid := 120
	if os.Getenv("RIGKIT_FULL") == "1" {
		nValid = 1000
	}
	s := New(hostileConfig)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(ln)
	defer hs.Close()
	url := "http://" + ln.Addr().String()
	// The hostile clients connect from another address, as attackers do: one
	// address's bodies in flight are capped at its share of the budget, so they
	// cannot hold the valid clients' share (TestSlowSendersDoNotLockOut).
	attacker := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	if c, err := attacker.Dial("tcp", ln.Addr().String()); err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	} else {
		c.Close()
	}
	hostileClient := &http.Client{Transport: &http.Transport{DialContext: attacker.DialContext}}
	defer hostileClient.CloseIdleConnections()

	glb := tube(t, 0)
	mesh, sf := tubeStream(t)
	tokens := []byte(`{"mesh":"` + b64(mesh) + `","tokens":` + idsJSON(sf.Tokens) + `}`)
	amp := amplificationGLB(2000, 100)

	if os.Getenv("RIGKIT_FULL") == "1" { // the baseline: the same valid load alone
		base := validLoad(url, nValid, glb, tokens)
		p50, p99 := quantiles(base.lat)
		t.Logf("baseline without hostile clients: %.1f req/s, p50 %v, p99 %v, %d failed", float64(nValid)/base.wall.Seconds(), p50, p99, len(base.failures))
	}
	stop := make(chan struct{})
	var peakHeap atomic.Uint64
	var hostile sync.WaitGroup
	run := func(f func()) {
		hostile.Add(1)
		go func() { defer hostile.Done(); f() }()
	}
	run(func() { sampleHeap(stop, &peakHeap) })
	var counts hostileCounts
	for i := 0; i < 4; i++ {
		run(func() { dribble(attacker, ln.Addr().String(), stop, &counts) })
	}
	run(func() {
		repeat(stop, func() {
			counts.add("amplification", postWith(hostileClient, url+"/score", bytes.NewReader(amp), int64(len(amp))))
		})
	})
	run(func() {
		repeat(stop, func() { counts.add("100MB", postWith(hostileClient, url+"/score", zeros(100<<20), 100<<20)) })
	})
	run(func() {
		repeat(stop, func() { counts.add("100MB chunked", postWith(hostileClient, url+"/score", zeros(100<<20), -1)) })
	})
	run(func() {
		repeat(stop, func() {
			resp, err := http.Get(url + "/healthz")
			st := "error"
			if err == nil {
				st = strconv.Itoa(resp.StatusCode)
				resp.Body.Close()
			}
			counts.add("healthz", st)
			time.Sleep(20 * time.Millisecond)
		})
	})

	res := validLoad(url, nValid, glb, tokens)
	close(stop)
	hostile.Wait()

	p50, p99 := quantiles(res.lat)
	t.Logf("valid: %d requests in %.1fs = %.1f req/s, p50 %v, p99 %v, %d retried after 503, %d re-sent on a new connection",
		nValid, res.wall.Seconds(), float64(nValid)/res.wall.Seconds(), p50, p99, res.retries, res.resent)
	t.Logf("hostile outcomes: %v", counts.snapshot())
	t.Logf("peak live heap %.0f MiB (bound %d MiB), peak RSS of the test process %s",
		float64(peakHeap.Load())/(1<<20), hostileHeapBound>>20, peakRSS())
	if len(res.failures) > 0 {
		t.Errorf("%d of %d valid requests failed: %v", len(res.failures), nValid, res.failures[:min(5, len(res.failures))])
	}
	for k, n := range counts.snapshot() {
		if strings.HasPrefix(k, "healthz ") && k != "healthz 200" {
			t.Errorf("/healthz answered %q %d times", k, n)
		}
	}
	if peakHeap.Load() > hostileHeapBound {
		t.Errorf("peak live heap %d bytes above the bound of %d", peakHeap.Load(), hostileHeapBound)
	}
	if n := s.InFlightBytes(); n != 0 {
		t.Errorf("%d body bytes still reserved after the load", n)
	}
}

// loadResult is what validLoad measured: the latencies, the failures, how many
// 503s were retried and how many requests the transport re-sent on a new
// connection, and the wall time.
type loadResult struct {
	lat             []time.Duration
	failures        []string
	retries, resent int
	wall            time.Duration
}

// validLoad sends n valid requests from 4 clients. The clients behave as a
// scoring client should: they retry a 503 after its Retry-After, and they mark
// each request idempotent (scoring is), so that the transport re-sends one whose
// kept-alive connection closed before any byte of the answer came back, as HTTP/1.1
// allows for idempotent requests. A connection lost after the answer began, on a
// fresh connection, or a status other than 200 still fails the request.
func validLoad(url string, n int, glb, tokens []byte) loadResult {
	var mu sync.Mutex
	var res loadResult
	jobs := make(chan int)
	var wg sync.WaitGroup
	// Valid clients keep their own connections, apart from the hostile ones'.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	start := time.Now()
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				path, body := "/score", glb
				if i%4 == 3 {
					path, body = "/score/tokens", tokens
				}
				t0 := time.Now()
				status, tries, conns := "", 0, 0
				for ; tries < 5; tries++ {
					var c int
					status, c = postIdempotent(client, url+path, body, fmt.Sprintf("valid-%d-%d", i, tries))
					conns += c - 1
					if status != "503" {
						break
					}
					time.Sleep(time.Second)
				}
				d := time.Since(t0)
				mu.Lock()
				res.lat = append(res.lat, d)
				res.retries += tries
				res.resent += conns
				if status != "200" {
					res.failures = append(res.failures, fmt.Sprintf("%s: %s", path, status))
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	res.wall = time.Since(start)
	return res
}

// postIdempotent posts body with an Idempotency-Key and returns the status (as
// postWith does) and how many connections the transport took for it: more than
// one when it re-sent the request after its connection closed unanswered.
func postIdempotent(client *http.Client, url string, body []byte, key string) (string, int) {
	conns := 0
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { conns++ }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", url, bytes.NewReader(body))
	if err != nil {
		return err.Error(), conns
	}
	req.Header.Set("Idempotency-Key", key)
	return send(client, req), conns
}

// quantiles returns the median and the 99th percentile of lat, sorting it.
func quantiles(lat []time.Duration) (p50, p99 time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(time.Millisecond)
	}
	return q(0.5), q(0.99)
}

// hostileCounts counts the outcomes of hostile requests by kind and status.
type hostileCounts struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *hostileCounts) add(kind, status string) {
	status, _, _ = strings.Cut(status, ":") // "dropped: ERROR" counts as dropped
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[kind+" "+status]++
}

func (c *hostileCounts) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

// repeat calls f until stop closes.
func repeat(stop <-chan struct{}, f func()) {
	for {
		select {
		case <-stop:
			return
		default:
			f()
		}
	}
}

// postWith posts body (length n, -1 for chunked) with client and returns the
// status, or "dropped: ERROR" when the request got no answer.
func postWith(client *http.Client, url string, body io.Reader, n int64) string {
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return err.Error()
	}
	req.ContentLength = n
	return send(client, req)
}

// send posts req as a GLB and returns the status, or "dropped: ERROR" when the
// request got no answer.
func send(client *http.Client, req *http.Request) string {
	req.Header.Set("Content-Type", "model/gltf-binary")
	resp, err := client.Do(req)
	if err != nil {
		return "dropped: " + err.Error()
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return strconv.Itoa(resp.StatusCode)
}

// zeros is n zero bytes, streamed.
func zeros(n int64) io.Reader { return io.LimitReader(zeroReader{}, n) }

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// dribble opens connections (dialed by d) that announce a 4 MiB body and send one byte every 50
// ms, counting how each ends, until stop closes.
func dribble(d *net.Dialer, addr string, stop <-chan struct{}, counts *hostileCounts) {
	for {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			counts.add("slow body", "dial error")
			return
		}
		fmt.Fprintf(c, "POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: model/gltf-binary\r\nContent-Length: %d\r\n\r\n", 4<<20)
		tick := time.NewTicker(50 * time.Millisecond)
		outcome := ""
		for outcome == "" {
			select {
			case <-stop:
				outcome = "still open at the end"
			case <-tick.C:
				if _, err := c.Write([]byte{0}); err != nil {
					outcome = "dropped by the server"
				}
			}
		}
		tick.Stop()
		c.Close()
		counts.add("slow body", outcome)
		if outcome != "dropped by the server" {
			return
		}
	}
}

// sampleHeap records the largest live heap (runtime/metrics) until stop closes.
func sampleHeap(stop <-chan struct{}, peak *atomic.Uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// peakRSS is the process's peak resident set (VmHWM), "unknown" off Linux.
func peakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.Join(strings.Fields(strings.TrimPrefix(line, "VmHWM:")), " ")
		}
	}
	return "unknown"
}
