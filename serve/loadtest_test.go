package serve

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
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
// at the same time, hostile ones: clients dribbling a byte every 50 ms into bodies
// announced at 4 MiB, amplification GLBs (2,000 nodes on one 10k-vertex mesh), and
// 100 MB bodies with and without Content-Length. Every valid request must succeed
// (a 503 would be retried after Retry-After and counted), /healthz must answer 200
// throughout, and the live heap must stay under hostileHeapBound. 120 valid
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

	glb := tube(t, 0)
	mesh, sf := tubeStream(t)
	tokens := []byte(`{"mesh":"` + b64(mesh) + `","tokens":` + idsJSON(sf.Tokens) + `}`)
	amp := amplificationGLB(2000, 100)

	if os.Getenv("RIGKIT_FULL") == "1" { // the baseline: the same valid load alone
		lat, failures, _, wall := validLoad(url, nValid, glb, tokens)
		p50, p99 := quantiles(lat)
		t.Logf("baseline without hostile clients: %.1f req/s, p50 %v, p99 %v, %d failed", float64(nValid)/wall.Seconds(), p50, p99, len(failures))
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
		run(func() { dribble(ln.Addr().String(), stop, &counts) })
	}
	run(func() {
		repeat(stop, func() { counts.add("amplification", postStatus(url+"/score", bytes.NewReader(amp), int64(len(amp)))) })
	})
	run(func() {
		repeat(stop, func() { counts.add("100MB", postStatus(url+"/score", zeros(100<<20), 100<<20)) })
	})
	run(func() {
		repeat(stop, func() { counts.add("100MB chunked", postStatus(url+"/score", zeros(100<<20), -1)) })
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

	lat, failures, retries, wall := validLoad(url, nValid, glb, tokens)
	close(stop)
	hostile.Wait()

	p50, p99 := quantiles(lat)
	t.Logf("valid: %d requests in %.1fs = %.1f req/s, p50 %v, p99 %v, %d retried after 503",
		nValid, wall.Seconds(), float64(nValid)/wall.Seconds(), p50, p99, retries)
	t.Logf("hostile outcomes: %v", counts.snapshot())
	t.Logf("peak live heap %.0f MiB (bound %d MiB), peak RSS of the test process %s",
		float64(peakHeap.Load())/(1<<20), hostileHeapBound>>20, peakRSS())
	if len(failures) > 0 {
		t.Errorf("%d of %d valid requests failed: %v", len(failures), nValid, failures[:min(5, len(failures))])
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

// validLoad sends n valid requests from 4 clients and returns their latencies, the
// failures, how many 503s were retried and the wall time.
func validLoad(url string, n int, glb, tokens []byte) (lat []time.Duration, failures []string, retries int, wall time.Duration) {
	var mu sync.Mutex
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
				status, tries := "", 0
				for ; tries < 5; tries++ {
					status = postWith(client, url+path, bytes.NewReader(body), int64(len(body)))
					if status != "503" {
						break
					}
					time.Sleep(time.Second)
				}
				d := time.Since(t0)
				mu.Lock()
				lat = append(lat, d)
				retries += tries
				if status != "200" {
					failures = append(failures, fmt.Sprintf("%s: %s", path, status))
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
	return lat, failures, retries, time.Since(start)
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

// postStatus posts body (length n, -1 for chunked) with the default client and
// returns the status, or "dropped: ERROR" when the request got no answer.
func postStatus(url string, body io.Reader, n int64) string {
	return postWith(http.DefaultClient, url, body, n)
}

func postWith(client *http.Client, url string, body io.Reader, n int64) string {
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return err.Error()
	}
	req.ContentLength = n
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

// dribble opens connections that announce a 4 MiB body and send one byte every 50
// ms, counting how each ends, until stop closes.
func dribble(addr string, stop <-chan struct{}, counts *hostileCounts) {
	for {
		c, err := net.Dial("tcp", addr)
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
