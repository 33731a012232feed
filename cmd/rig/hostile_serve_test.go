package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/internal/hostile"
	"github.com/rigkit/rigkit/skincodec"
)

// serveAnswerLimit is the longest a hostile request may wait for its answer: the
// product's 60 s per input.
const serveAnswerLimit = 60 * time.Second

// limitedServer is `rig serve` running as a subprocess under a 3 GiB address-space
// limit (ulimit -v), on a loopback port the kernel picks.
type limitedServer struct {
	cmd    *exec.Cmd
	addr   string        // host:port
	stderr *syncBuffer   // everything it wrote to stderr
	done   chan struct{} // closed when the process has exited
	err    error         // its exit error, once done is closed
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of exec.Cmd and the
// test reading it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServeLimited starts `rig serve args...` on 127.0.0.1:0 under ulimit -v
// 3145728 and waits for its "listening on" line; the process is killed when the
// test ends if it is still running.
func startServeLimited(t *testing.T, args ...string) *limitedServer {
	t.Helper()
	argv := append([]string{"-c", `ulimit -v 3145728 && exec "$@"`, "sh", os.Args[0], "serve", "--addr", "127.0.0.1:0"}, args...)
	cmd := exec.Command("sh", argv...)
	cmd.Env = append(os.Environ(), asRigEnv+"=1", "GOMAXPROCS=2")
	s := &limitedServer{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start rig serve: %v", err)
	}
	t.Cleanup(func() { s.stop(t) })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("rig serve printed no address: %s", s.stderr)
	}
	_, url, ok := strings.Cut(lines.Text(), "listening on http://")
	if !ok {
		t.Fatalf("rig serve: unexpected first line %q", lines.Text())
	}
	s.addr = url
	go func() {
		io.Copy(io.Discard, stdout)
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s
}

// stop ends the server with SIGTERM (a graceful shutdown), killing it after 10 s.
func (s *limitedServer) stop(t *testing.T) {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Errorf("rig serve did not stop within 10 s of SIGTERM")
	}
}

// alive reports an error when the process has exited.
func (s *limitedServer) alive() error {
	select {
	case <-s.done:
		return fmt.Errorf("rig serve exited (%v):\n%s", s.err, s.stderr)
	default:
		return nil
	}
}

// peakRSS returns the server's peak resident memory (VmHWM of /proc), 0 where
// /proc does not say.
func (s *limitedServer) peakRSS() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// serveAnswer is one response: status and body.
type serveAnswer struct {
	status int
	body   []byte
}

// post sends body (size bytes, announced as Content-Length) to path on a fresh
// connection and reads the answer while the body is still being written, so that
// a server answering before reading (413 on Content-Length) is seen as such rather
// than as a broken pipe. It fails after serveAnswerLimit.
func (s *limitedServer) post(path, ctype string, body io.Reader, size int64) (serveAnswer, error) {
	conn, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
	if err != nil {
		return serveAnswer{}, fmt.Errorf("dial %s: %w", s.addr, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(serveAnswerLimit))
	go func() {
		w := bufio.NewWriter(conn)
		fmt.Fprintf(w, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", path, s.addr, ctype, size)
		io.Copy(w, io.LimitReader(body, size)) // a write error means the server stopped reading
		w.Flush()
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return serveAnswer{}, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return serveAnswer{}, fmt.Errorf("POST %s: read answer: %w", path, err)
	}
	return serveAnswer{resp.StatusCode, data}, nil
}

// postBytes posts data to path.
func (s *limitedServer) postBytes(path, ctype string, data []byte) (serveAnswer, error) {
	return s.post(path, ctype, bytes.NewReader(data), int64(len(data)))
}

// checkServeAnswer accepts a JSON answer with 200, 400, 413 or 503 (with an
// error for all but 200) that holds no byte of the file outside the case folder.
func checkServeAnswer(a serveAnswer) error {
	var v struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(a.body, &v); err != nil {
		return fmt.Errorf("status %d with a body that is not JSON: %.200q", a.status, a.body)
	}
	if bytes.Contains(a.body, []byte(hostile.Secret[:16])) {
		return fmt.Errorf("status %d: the answer holds bytes of the file outside the folder", a.status)
	}
	switch a.status {
	case http.StatusOK:
		return nil
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable:
		if v.Error == "" {
			return fmt.Errorf("status %d without an error", a.status)
		}
		return nil
	}
	return fmt.Errorf("status %d: %s", a.status, v.Error)
}

// serveValid is the valid request of TestHostileInputsServe: a rigged sample GLB
// and its own token stream.
type serveValid struct {
	glb    []byte
	tokens json.RawMessage
}

// loadServeValid reads assets/samples/biped.glb and tokenizes its rig with the
// shipped skin tokenizer, as rig serve reads it.
func loadServeValid(t *testing.T) serveValid {
	t.Helper()
	path := filepath.Join("..", "..", "assets", "samples", "biped.glb")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	tok, err := skincodec.Load("")
	if err != nil {
		t.Fatalf("skin tokenizer: %v", err)
	}
	sf, _, err := skincodec.Tokenize(c, tok, tok.Options())
	if err != nil {
		t.Fatalf("tokenize %s: %v", path, err)
	}
	stream, err := json.Marshal(sf.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	return serveValid{glb: data, tokens: stream}
}

// tokensBody is a /score/tokens JSON body: mesh as base64 and stream.
func tokensBody(mesh []byte, stream json.RawMessage) []byte {
	b, _ := json.Marshal(map[string]any{"mesh": base64.StdEncoding.EncodeToString(mesh), "tokens": stream})
	return b
}

// TestHostileInputsServe starts rig serve under the same 3 GiB address-space limit
// as TestHostileInputsCommands and posts every hostile case that is a regular file
// to /score, and as the mesh of a valid token stream to /score/tokens when its
// base64 fits the body limit, while a client posts the valid sample GLB throughout.
// Each answer must be JSON with 200, 400, 413 or 503 within 60 s and hold no byte
// of the file outside the case folder; a case the loader refuses must not get 200.
// Afterwards the server must still answer /healthz and score the sample, no valid
// request may have failed, and its stderr must show no crash.
func TestHostileInputsServe(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the memory limit with ulimit")
	}
	cases, err := hostile.Write(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	valid := loadServeValid(t)
	tokens := hostileTokenBodies(t, cases, valid)
	srv := startServeLimited(t)
	unloaded := validLatencies(t, srv, valid, 100)
	load := startValidLoad(srv, valid)
	var windows []caseWindow
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) { windows = append(windows, postHostileCase(t, srv, tc, tokens[tc.Name])...) })
	}
	loaded := load.stop()
	logSlowestCases(t, loaded, windows, percentile(unloaded, 0.99))
	peak := srv.peakRSS()
	checkServerAfter(t, srv, valid)
	p99 := percentile(unloaded, 0.99)
	t.Logf("valid /score: unloaded p50 %v p99 %v (%d requests); during the cases p50 %v p99 %v (%.2f× the unloaded p99; %d requests, %d failed); server peak RSS %.1f MiB",
		percentile(unloaded, 0.5), p99, len(unloaded), percentile(loaded.times, 0.5), percentile(loaded.times, 0.99),
		float64(percentile(loaded.times, 0.99))/float64(max(p99, 1)), len(loaded.times)+len(loaded.failures), len(loaded.failures),
		float64(peak)/(1<<20))
	// The cases go one at a time beside one valid client, so the whole process
	// (runtime and binary included) stays within one load's documented bound.
	if bound := format.BudgetAllocBytes(format.DefaultBudget()); peak > bound {
		t.Errorf("server peak RSS %d B over the load bound %d B", peak, bound)
	}
	for _, f := range loaded.failures {
		t.Errorf("valid request failed during the hostile cases: %v", f)
	}
}

// caseWindow is when one hostile case was in flight.
type caseWindow struct {
	name       string
	start, end time.Time
}

// logSlowestCases logs, per hostile case, the slowest valid request that started
// while it was in flight, against the unloaded p99, the cases over 2× first.
func logSlowestCases(t *testing.T, l *validLoad, windows []caseWindow, p99 time.Duration) {
	t.Helper()
	slowest := make([]time.Duration, len(windows))
	for i, start := range l.starts {
		for k, w := range windows {
			if !start.Before(w.start) && start.Before(w.end) {
				slowest[k] = max(slowest[k], l.times[i])
			}
		}
	}
	order := make([]int, len(windows))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(slowest[b], slowest[a]) })
	var b strings.Builder
	over := 0
	for _, k := range order {
		r := float64(slowest[k]) / float64(max(p99, 1))
		if r > 2 {
			over++
		}
		fmt.Fprintf(&b, " %s %.2f×;", windows[k].name, r)
	}
	t.Logf("slowest valid request during each case, against the unloaded p99 (%d of %d over 2×):%s", over, len(windows), b.String())
}

// slowServeCases take seconds of orphan repair per request; -short leaves them out.
var slowServeCases = map[string]bool{"orphan-grid": true, "orphan-sphere": true}

// hostileTokenBodies makes, before any request, the /score/tokens body of each
// case that has one (the case's file as the mesh, the sample's stream), so the
// client's base64 work does not share the cores with the measured requests.
func hostileTokenBodies(t *testing.T, cases []hostile.Case, valid serveValid) map[string][]byte {
	t.Helper()
	bodies := map[string][]byte{}
	for _, tc := range cases {
		st, err := os.Stat(tc.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Mode().IsRegular() || 4*(st.Size()+2)/3+int64(len(valid.tokens)) > 64<<20 || tc.Name == "orphan-grid" {
			// No body, over rig serve's default --max-body once base64-encoded, or
			// (orphan-grid) a 200,000-vertex mesh the loader accepts, on which
			// decoding the sample's skin is 20 s of ordinary work on no hostile path.
			continue
		}
		data, err := os.ReadFile(tc.Path)
		if err != nil {
			t.Fatal(err)
		}
		bodies[tc.Name] = tokensBody(data, valid.tokens)
	}
	return bodies
}

// postHostileCase posts one case to /score and, when it has a tokens body, to
// /score/tokens, checking each answer.
func postHostileCase(t *testing.T, srv *limitedServer, tc hostile.Case, tokens []byte) (windows []caseWindow) {
	st, err := os.Stat(tc.Path) // before opening: opening a FIFO blocks
	if err != nil {
		t.Fatal(err)
	}
	if !st.Mode().IsRegular() {
		t.Skipf("%s is not a regular file: no body to post", tc.Path)
	}
	if testing.Short() && slowServeCases[tc.Name] {
		t.Skip("seconds of repair work per request")
	}
	f, err := os.Open(tc.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	a, err := srv.post("/score", "model/gltf-binary", f, st.Size())
	windows = append(windows, caseWindow{tc.Name + " /score", start, time.Now()})
	checkHostileAnswer(t, srv, tc, "/score", a, err)
	t.Logf("/score %s (%d B): %d in %v: %.160s", tc.Name, st.Size(), a.status, time.Since(start).Round(time.Millisecond), a.body)
	if tokens == nil {
		return windows
	}
	start = time.Now()
	a, err = srv.postBytes("/score/tokens", "application/json", tokens)
	windows = append(windows, caseWindow{tc.Name + " /score/tokens", start, time.Now()})
	checkHostileAnswer(t, srv, tc, "/score/tokens", a, err)
	t.Logf("/score/tokens %s: %d in %v: %.160s", tc.Name, a.status, time.Since(start).Round(time.Millisecond), a.body)
	return windows
}

// checkHostileAnswer checks one answer to a hostile case.
func checkHostileAnswer(t *testing.T, srv *limitedServer, tc hostile.Case, path string, a serveAnswer, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s %v: %v (%v)", path, tc, err, srv.alive())
	}
	if err := checkServeAnswer(a); err != nil {
		t.Errorf("%s %v: %v", path, tc, err)
	}
	if tc.Want != "" && a.status == http.StatusOK {
		t.Errorf("%s %v: scored a file the loader refuses: %.200s", path, tc, a.body)
	}
	gltf := strings.HasSuffix(tc.Path, ".glb") || strings.HasSuffix(tc.Path, ".gltf") // rig serve reads no OBJ
	if gltf && strings.Contains(tc.Want, "Budget.") && path == "/score" && a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("%s %v: status %d, want 413 (over the load budget)", path, tc, a.status)
	}
}

// checkServerAfter requires the server alive, /healthz ok, the sample scored 200
// and no crash in its stderr.
func checkServerAfter(t *testing.T, srv *limitedServer, valid serveValid) {
	t.Helper()
	if err := srv.alive(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + srv.addr + "/healthz")
	if err != nil {
		t.Fatalf("healthz: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"status":"ok"`)) {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	if a, err := srv.postBytes("/score", "model/gltf-binary", valid.glb); err != nil || a.status != http.StatusOK {
		t.Errorf("the sample after the hostile cases: %d %v %.200s", a.status, err, a.body)
	}
	if a, err := srv.postBytes("/score/tokens", "application/json", tokensBody(valid.glb, valid.tokens)); err != nil || a.status != http.StatusOK {
		t.Errorf("the sample's token stream after the hostile cases: %d %v %.200s", a.status, err, a.body)
	}
	srv.stop(t)
	if e := srv.stderr.String(); strings.Contains(e, "panic") || strings.Contains(e, "fatal error") || strings.Contains(e, "internal error") {
		t.Errorf("rig serve's stderr shows a crash:\n%s", e)
	}
	if srv.err != nil {
		t.Errorf("rig serve exited with %v after SIGTERM:\n%s", srv.err, srv.stderr)
	}
}

// validLatencies posts the sample n times in a row and returns each latency; any
// failure fails the test.
func validLatencies(t *testing.T, srv *limitedServer, valid serveValid, n int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		a, err := srv.postBytes("/score", "model/gltf-binary", valid.glb)
		if err != nil || a.status != http.StatusOK {
			t.Fatalf("valid request %d before the hostile cases: %d %v %.200s", i, a.status, err, a.body)
		}
		out = append(out, time.Since(start))
	}
	return out
}

// validLoad is a client posting the sample to /score in a loop.
type validLoad struct {
	cancel   context.CancelFunc
	done     chan struct{}
	times    []time.Duration
	starts   []time.Time // of each of times
	failures []error
}

// startValidLoad starts a validLoad on srv.
func startValidLoad(srv *limitedServer, valid serveValid) *validLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &validLoad{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for ctx.Err() == nil {
			start := time.Now()
			a, err := srv.postBytes("/score", "model/gltf-binary", valid.glb)
			if err == nil && a.status != http.StatusOK {
				err = fmt.Errorf("status %d: %.200s", a.status, a.body)
			}
			if err != nil {
				l.failures = append(l.failures, err)
				time.Sleep(100 * time.Millisecond) // a dead server refuses at once
				continue
			}
			l.times = append(l.times, time.Since(start))
			l.starts = append(l.starts, start)
		}
	}()
	return l
}

// stop ends the load after its request in flight and returns it.
func (l *validLoad) stop() *validLoad {
	l.cancel()
	<-l.done
	return l
}

// percentile returns the q-quantile of ds (nearest rank), 0 for none.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}
