package serve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// tube returns a closed cylinder along y with a two-bone chain and smooth weights,
// encoded as GLB.
func tube(t testing.TB, bend float64) []byte {
	const rings, segs = 12, 12
	m := character.Mesh{}
	for i := 0; i <= rings; i++ {
		y := -1 + 2*float64(i)/rings
		for j := 0; j < segs; j++ {
			a := 2 * math.Pi * float64(j) / segs
			m.Positions = append(m.Positions, vecmath.Vec3{0.25 * math.Cos(a), y, 0.25 * math.Sin(a)})
		}
	}
	at := func(i, j int) int { return i*segs + j%segs }
	for i := 0; i < rings; i++ {
		for j := 0; j < segs; j++ {
			m.Triangles = append(m.Triangles, [3]int{at(i, j), at(i+1, j), at(i+1, j+1)}, [3]int{at(i, j), at(i+1, j+1), at(i, j+1)})
		}
	}
	bot, top := len(m.Positions), len(m.Positions)+1
	m.Positions = append(m.Positions, vecmath.Vec3{0, -1, 0}, vecmath.Vec3{0, 1, 0})
	for j := 0; j < segs; j++ {
		m.Triangles = append(m.Triangles, [3]int{bot, at(0, j), at(0, j+1)}, [3]int{top, at(rings, j+1), at(rings, j)})
	}
	sk := &character.Skeleton{Names: []string{"a", "b", "c"}, Parents: []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0, -0.9, 0}), vecmath.Translate4(vecmath.Vec3{bend, 0, 0}), vecmath.Translate4(vecmath.Vec3{0, 0.9, 0})}}
	skin := &character.Skin{Weights: make([][]character.Influence, len(m.Positions))}
	for v, p := range m.Positions {
		w := math.Max(0, math.Min(1, (p[1]+0.3)/0.6))
		skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1 - w}, {Joint: 1, Weight: w}}
	}
	skin.Prune(4)
	c := &character.Character{Name: "tube", Mesh: m, Skeleton: sk, Skin: skin}
	var buf bytes.Buffer
	if _, err := assets.Encode(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestEndpoints(t *testing.T) {
	srv := httptest.NewServer(New(Config{MaxBodyBytes: 1 << 20, Concurrency: 2}))
	defer srv.Close()
	glb := tube(t, 0)
	good := base64.StdEncoding.EncodeToString(glb)
	tests := []struct {
		name, method, path, ctype string
		body                      []byte
		want                      int
	}{
		{"health", "GET", "/healthz", "", nil, 200},
		{"score", "POST", "/score", "model/gltf-binary", glb, 200},
		{"empty body", "POST", "/score", "", nil, 400},
		{"garbage", "POST", "/score", "", []byte("not a glb"), 400},
		{"truncated glb", "POST", "/score", "", glb[:len(glb)/2], 400},
		{"too large", "POST", "/score", "", make([]byte, 2<<20), 413},
		{"batch json", "POST", "/score/batch", "application/json", []byte(`{"glbs":["` + good + `","` + good + `"],"scale_by_std":true}`), 200},
		{"batch bad json", "POST", "/score/batch", "application/json", []byte(`{"glbs":`), 400},
		{"batch bad base64", "POST", "/score/batch", "application/json", []byte(`{"glbs":["%%%"]}`), 400},
		{"batch empty", "POST", "/score/batch", "application/json", []byte(`{"glbs":[]}`), 400},
		{"wrong method", "GET", "/score", "", nil, 405},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, bytes.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			var v map[string]any
			if err := json.Unmarshal(body, &v); err != nil && tc.want != 405 {
				t.Fatalf("body is not JSON: %s", body)
			}
			if tc.want >= 400 && tc.want != 405 && v["error"] == nil {
				t.Errorf("error response without an error message: %s", body)
			}
		})
	}
}

func TestBatchMultipartAdvantages(t *testing.T) {
	srv := httptest.NewServer(New(Config{}))
	defer srv.Close()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i, glb := range [][]byte{tube(t, 0), tube(t, 0.6), []byte("broken")} {
		fw, _ := mw.CreateFormFile("glb", fmt.Sprintf("rig%d.glb", i))
		fw.Write(glb)
	}
	mw.Close()
	resp, err := http.Post(srv.URL+"/score/batch", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var br BatchResponse
	if err := json.NewDecoder(resp.Body).Decode(&br); err != nil {
		t.Fatal(err)
	}
	if len(br.Results) != 3 || len(br.Advantages) != 3 {
		t.Fatalf("got %d results and %d advantages", len(br.Results), len(br.Advantages))
	}
	if br.Results[2].Error == "" || br.Results[2].Score != 0 {
		t.Errorf("broken rig: %+v", br.Results[2])
	}
	if !(br.Results[0].Score > br.Results[1].Score) {
		t.Errorf("a centred chain (%.3f) should outscore a chain bent outside the tube (%.3f)", br.Results[0].Score, br.Results[1].Score)
	}
	sum := 0.0
	for _, a := range br.Advantages {
		sum += a
	}
	if math.Abs(sum) > 1e-9 || !(br.Advantages[0] > br.Advantages[2]) {
		t.Errorf("advantages %v", br.Advantages)
	}
}

// A bounded loopback load test: 500 requests (2000 with RIGKIT_FULL=1) from 8
// clients, every 5th malformed (a truncated GLB or a token stream that breaks the
// grammar, alternately), one in 7 of the rest a mesh plus token stream. Every good
// request must get 200 and every malformed one 400; nothing else.
func TestLoad(t *testing.T) {
	n := 500
	if os.Getenv("RIGKIT_FULL") == "1" {
		n = 2000
	}
	srv := httptest.NewServer(New(Config{}))
	defer srv.Close()
	glb := tube(t, 0)
	mesh, sf := tubeStream(t)
	streamBody := func(ids []int) []byte {
		return []byte(`{"mesh":"` + base64.StdEncoding.EncodeToString(mesh) + `","tokens":` + idsJSON(ids) + `}`)
	}
	goodTokens := streamBody(sf.Tokens)
	badTokens := streamBody(append([]int{tokens.BOS, tokens.EOS}, sf.Tokens[2:]...))
	var mu sync.Mutex
	unexpected := map[string]int{}
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				path, ctype, body, want := "/score", "model/gltf-binary", glb, 200
				switch {
				case i%10 == 4:
					body, want = glb[:len(glb)/3], 400
				case i%10 == 9:
					path, ctype, body, want = "/score/tokens", "application/json", badTokens, 400
				case i%7 == 3:
					path, ctype, body = "/score/tokens", "application/json", goodTokens
				}
				resp, err := http.Post(srv.URL+path, ctype, bytes.NewReader(body))
				if err != nil {
					mu.Lock()
					unexpected[err.Error()]++
					mu.Unlock()
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					mu.Lock()
					unexpected[fmt.Sprintf("%s: status %d, want %d", path, resp.StatusCode, want)]++
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if len(unexpected) > 0 {
		t.Errorf("unexpected outcomes over %d requests: %v", n, unexpected)
	}
}
