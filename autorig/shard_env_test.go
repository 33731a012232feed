package autorig

import (
	"strings"
	"testing"
)

func TestParseShardEnv(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		env     map[string]string
		k, n    int
		wantErr string
	}{
		{"kubernetes index", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 2, 4, ""},
		{"slurm id", "auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, 3, 4, ""},
		{"slurm from 1", "auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1"}, 3, 4, ""},
		{"kubernetes first", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "3"}, 1, 4, ""},
		{"explicit ignores env", "0/2", map[string]string{"JOB_COMPLETION_INDEX": "1"}, 0, 2, ""},
		{"no env", "auto/4", nil, 0, 0, "JOB_COMPLETION_INDEX"},
		{"index too large", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "4"}, 0, 0, "0 <= k < n"},
		{"not a number", "auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, 0, 0, "not an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, n, err := ParseShardEnv(tc.in, func(v string) string { return tc.env[v] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || k != tc.k || n != tc.n {
				t.Fatalf("= %d/%d, %v; want %d/%d", k, n, err, tc.k, tc.n)
			}
		})
	}
}
