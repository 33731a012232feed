package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rigkit/rigkit/rewards"
)

// /healthz names the reward version, so that a trainer can pin the rewards.
func TestHealthzRewardVersion(t *testing.T) {
	srv := httptest.NewServer(New(Config{MaxBodyBytes: 1 << 20, Concurrency: 1}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Version *int     `json:"reward_version"`
		Change  string   `json:"reward_change"`
		Rewards []string `json:"rewards"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Version == nil || *body.Version != rewards.RewardVersion {
		t.Fatalf("reward_version %v, want %d", body.Version, rewards.RewardVersion)
	}
	if body.Change != rewards.RewardChange || len(body.Rewards) != len(rewards.RewardNames) {
		t.Fatalf("reward_change %q, rewards %v: want the version's change and %v", body.Change, body.Rewards, rewards.RewardNames)
	}
}
