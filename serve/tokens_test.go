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
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

// tubeStream returns the tube's mesh as GLB and its rig written as a token stream by
// the shipped skin tokenizer.
func tubeStream(t testing.TB) (mesh []byte, sf *skincodec.StreamFile) {
	glb := tube(t, 0)
	c, _, err := assets.Decode(bytes.NewReader(glb), "tube.glb", nil, assets.Options{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := skincodec.Load("")
	if err != nil {
		t.Fatal(err)
	}
	sf, _, err = skincodec.Tokenize(c, tok, tok.Options())
	if err != nil {
		t.Fatal(err)
	}
	return glb, sf
}

func idsJSON(ids []int) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// post sends body and decodes the JSON answer into v; it returns the status.
func post(t *testing.T, url, ctype string, body []byte, v any) int {
	t.Helper()
	resp, err := http.Post(url, ctype, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("status %d, body is not JSON: %s", resp.StatusCode, data)
	}
	return resp.StatusCode
}

func TestScoreTokens(t *testing.T) {
	srv := httptest.NewServer(New(Config{MaxBodyBytes: 1 << 20, Concurrency: 2}))
	defer srv.Close()
	mesh, sf := tubeStream(t)
	meshB64 := base64.StdEncoding.EncodeToString(mesh)
	ids := sf.Tokens
	n := len(ids)
	withToken := func(i, tok int) []int {
		out := append([]int(nil), ids...)
		out[i] = tok
		return out
	}
	jsonBody := func(tokens string) []byte {
		return []byte(`{"mesh":"` + meshB64 + `","tokens":` + tokens + `}`)
	}
	sfJSON, _ := json.Marshal(sf)
	otherK := *sf
	otherK.K++
	otherKJSON, _ := json.Marshal(otherK)
	otherTok := *sf
	otherTok.SkinTokenizer = "0123456789abcdef"
	otherTokJSON, _ := json.Marshal(otherTok)
	pos := func(p int) *int { return &p }
	tests := []struct {
		name    string
		body    []byte
		want    int
		wantPos *int
	}{
		{"ids", jsonBody(idsJSON(ids)), 200, nil},
		{"stream file", jsonBody(string(sfJSON)), 200, nil},
		{"stream file of another K", jsonBody(string(otherKJSON)), 400, nil},
		{"stream file of another tokenizer", jsonBody(string(otherTokJSON)), 400, nil},
		{"no BOS", jsonBody(idsJSON(withToken(0, tokens.SEP))), 400, pos(0)},
		{"skin code in the skeleton", jsonBody(idsJSON(withToken(2, tokens.SkinToken(7)))), 400, pos(2)},
		{"id outside the vocabulary", jsonBody(idsJSON(withToken(n-2, tokens.VocabSize+5))), 400, pos(n - 2)},
		{"no EOS", jsonBody(idsJSON(ids[:n-1])), 400, pos(n - 1)},
		{"token after EOS", jsonBody(idsJSON(append(append([]int(nil), ids...), tokens.EOS))), 400, pos(n)},
		{"not an integer", jsonBody(`[1, 2.5]`), 400, pos(1)},
		{"empty stream", jsonBody(`[]`), 400, pos(0)},
		{"tokens not an array", jsonBody(`"BOS"`), 400, nil},
		{"no tokens", []byte(`{"mesh":"` + meshB64 + `"}`), 400, nil},
		{"no mesh", []byte(`{"tokens":` + idsJSON(ids) + `}`), 400, nil},
		{"mesh not base64", []byte(`{"mesh":"%%%","tokens":` + idsJSON(ids) + `}`), 400, nil},
		{"mesh not a GLB", []byte(`{"mesh":"` + base64.StdEncoding.EncodeToString([]byte("nope")) + `","tokens":` + idsJSON(ids) + `}`), 400, nil},
		{"truncated JSON", jsonBody(idsJSON(ids))[:40], 400, nil},
		{"too large", make([]byte, 2<<20), 413, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v struct {
				Score    *float64           `json:"score"`
				Rewards  map[string]float64 `json:"rewards"`
				Error    string             `json:"error"`
				Position *int               `json:"position"`
			}
			status := post(t, srv.URL+"/score/tokens", "application/json", tc.body, &v)
			if status != tc.want {
				t.Fatalf("status %d, want %d (%s)", status, tc.want, v.Error)
			}
			if tc.want == 200 {
				if v.Score == nil || !(*v.Score > 0) || len(v.Rewards) != len(rewards.RewardNames) {
					t.Errorf("report: score %v, rewards %v", v.Score, v.Rewards)
				}
				return
			}
			if v.Error == "" {
				t.Error("error response without a message")
			}
			switch {
			case tc.wantPos == nil && v.Position != nil:
				t.Errorf("position %d for a request error", *v.Position)
			case tc.wantPos != nil && (v.Position == nil || *v.Position != *tc.wantPos):
				t.Errorf("position %v, want %d (%s)", v.Position, *tc.wantPos, v.Error)
			}
		})
	}

	// The multipart form takes `rig tokenize` output as it is, and scores the same.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("mesh", "tube.glb")
	fw.Write(mesh)
	fw, _ = mw.CreateFormFile("tokens", "tube.json")
	fw.Write(sfJSON)
	mw.Close()
	var a, b struct{ Score float64 }
	if status := post(t, srv.URL+"/score/tokens", mw.FormDataContentType(), buf.Bytes(), &a); status != 200 {
		t.Fatalf("multipart: status %d", status)
	}
	post(t, srv.URL+"/score/tokens", "application/json", jsonBody(idsJSON(ids)), &b)
	if a.Score != b.Score {
		t.Errorf("multipart score %v, JSON score %v", a.Score, b.Score)
	}
}

// A group of token streams on one mesh: one preparation, per-stream errors with
// their position, advantages over the whole group.
func TestBatchTokens(t *testing.T) {
	s := New(Config{Concurrency: 2})
	srv := httptest.NewServer(s)
	defer srv.Close()
	mesh, sf := tubeStream(t)
	good := sf.Tokens
	// The same skeleton with other skin codes: a different rig on the same mesh.
	other := append([]int(nil), good...)
	for i := len(other) - 2; i > len(other)-2-3*sf.K; i-- {
		other[i] = tokens.SkinToken((other[i] - tokens.SkinBase + 333) % tokens.SkinCodebookSize)
	}
	bad := append([]int(nil), good...)
	bad[1] = tokens.EOS
	streams := []string{idsJSON(good), idsJSON(other), idsJSON(bad), `{"tokens":` + idsJSON(good) + `}`}
	body := fmt.Sprintf(`{"mesh":%q,"streams":[%s,%s,%s,%s],"scale_by_std":true}`,
		base64.StdEncoding.EncodeToString(mesh), streams[0], streams[1], streams[2], streams[3])
	var br BatchResponse
	if status := post(t, srv.URL+"/score/batch", "application/json", []byte(body), &br); status != 200 {
		t.Fatalf("status %d", status)
	}
	if len(br.Results) != 4 || len(br.Advantages) != 4 {
		t.Fatalf("%d results, %d advantages", len(br.Results), len(br.Advantages))
	}
	for i, it := range br.Results {
		if i == 2 {
			if it.Error == "" || it.Score != 0 || it.Position == nil || *it.Position != 1 {
				t.Errorf("bad stream: %+v", it)
			}
			continue
		}
		if it.Error != "" || !(it.Score > 0) {
			t.Errorf("stream %d: %+v", i, it)
		}
	}
	if br.Results[0].Score != br.Results[3].Score {
		t.Errorf("the same stream as ids and as an object scored %v and %v", br.Results[0].Score, br.Results[3].Score)
	}
	sum := 0.0
	for _, a := range br.Advantages {
		sum += a
	}
	if math.Abs(sum) > 1e-9 || !(br.Advantages[0] > br.Advantages[2]) {
		t.Errorf("advantages %v", br.Advantages)
	}
	if st := s.CacheStats(); st.Misses != 1 {
		t.Errorf("cache %+v: the group's mesh should be prepared once", st)
	}

	// Malformed groups are refused as a whole.
	meshB64 := base64.StdEncoding.EncodeToString(mesh)
	for name, b := range map[string]string{
		"streams without a mesh": `{"streams":[` + streams[0] + `]}`,
		"mesh without streams":   `{"mesh":"` + meshB64 + `"}`,
		"glbs and streams":       `{"glbs":["` + meshB64 + `"],"mesh":"` + meshB64 + `","streams":[` + streams[0] + `]}`,
		"broken mesh":            `{"mesh":"` + base64.StdEncoding.EncodeToString([]byte("x")) + `","streams":[` + streams[0] + `]}`,
	} {
		var e errorBody
		if status := post(t, srv.URL+"/score/batch", "application/json", []byte(b), &e); status != 400 || e.Error == "" {
			t.Errorf("%s: status %d, %+v", name, status, e)
		}
	}
}

// GLB requests on one mesh reuse the prepared mesh.
func TestScoreCachesMesh(t *testing.T) {
	s := New(Config{})
	srv := httptest.NewServer(s)
	defer srv.Close()
	glb := tube(t, 0)
	var first, second struct{ Score float64 }
	post(t, srv.URL+"/score", "model/gltf-binary", glb, &first)
	post(t, srv.URL+"/score", "model/gltf-binary", glb, &second)
	if first.Score != second.Score || !(first.Score > 0) {
		t.Errorf("scores %v, %v", first.Score, second.Score)
	}
	if st := s.CacheStats(); st.Misses != 1 || st.Hits != 1 {
		t.Errorf("cache %+v, want 1 miss and 1 hit", st)
	}
}
