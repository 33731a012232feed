package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// readRepoFile reads a file at the repository root.
func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../../" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// match returns the first submatch of re in s, failing the test when there is none.
func match(t *testing.T, s, re, what string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s: no match for %s", what, re)
	}
	return m[1]
}

// TestDeployShardCounts checks that the Kubernetes job and the Slurm array start as
// many processes as --shard auto/N splits the inputs into (a mismatch leaves
// meshes unrigged or runs idle shards), in the image the Dockerfile builds, whose
// Go build is the one `make build` runs.
func TestDeployShardCounts(t *testing.T) {
	k8s := readRepoFile(t, "deploy/k8s-indexed-job.yaml")
	completions := match(t, k8s, `(?m)^\s*completions:\s*(\d+)`, "k8s completions")
	if got := match(t, k8s, `"auto/(\d+)"`, "k8s --shard"); got != completions {
		t.Errorf("k8s: completions %s, --shard auto/%s", completions, got)
	}
	if match(t, k8s, `(?m)^\s*completionMode:\s*(\w+)`, "k8s completionMode") != "Indexed" {
		t.Error("k8s: the job must be Indexed for JOB_COMPLETION_INDEX")
	}
	slurm := readRepoFile(t, "deploy/slurm-array.sh")
	last, _ := strconv.Atoi(match(t, slurm, `#SBATCH --array=0-(\d+)`, "slurm --array"))
	if shards := match(t, slurm, `(?m)^SHARDS=(\d+)`, "slurm SHARDS"); strconv.Itoa(last+1) != shards {
		t.Errorf("slurm: array 0-%d, SHARDS=%s", last, shards)
	}
	image := match(t, k8s, `image:\s*(\S+)`, "k8s image")
	if got := match(t, slurm, `docker-daemon://(\S+)`, "slurm image"); got != image {
		t.Errorf("slurm runs %s, k8s %s", got, image)
	}
	docker := readRepoFile(t, "Dockerfile")
	if match(t, docker, `docker build -t (\S+)`, "Dockerfile tag") != image {
		t.Errorf("the Dockerfile's documented tag is not %s", image)
	}
	match(t, docker, `RUN (make rig-binary)`, "Dockerfile build")
	match(t, readRepoFile(t, "Makefile"), `(?m)^build: deps\n\t@\$\(MAKE\) --no-print-directory (rig-binary)`, "make build")
}
