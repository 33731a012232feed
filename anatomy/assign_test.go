package anatomy

import (
	"math"
	"math/rand"
	"testing"
)

// TestAssignIsOptimal compares the Hungarian method with every assignment of small
// random cost matrices, wide and tall.
func TestAssignIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		rows, cols := 1+rng.Intn(5), 1+rng.Intn(5)
		cost := make([][]float64, rows)
		for i := range cost {
			cost[i] = make([]float64, cols)
			for j := range cost[i] {
				cost[i][j] = float64(rng.Intn(10)) // ties on purpose
			}
		}
		got := assign(cost)
		used := map[int]bool{}
		sum, pairs := 0.0, 0
		for i, j := range got {
			if j < 0 {
				continue
			}
			if used[j] {
				t.Fatalf("%v: column %d used twice: %v", cost, j, got)
			}
			used[j] = true
			sum += cost[i][j]
			pairs++
		}
		if pairs != min(rows, cols) {
			t.Fatalf("%v: %d pairs, want %d: %v", cost, pairs, min(rows, cols), got)
		}
		if best := bruteAssign(cost, 0, map[int]bool{}); math.Abs(sum-best) > 1e-9 {
			t.Fatalf("%v: cost %g, best %g: %v", cost, sum, best, got)
		}
	}
}

// bruteAssign is the least cost of a full assignment of rows i.. (or of every
// column when there are fewer columns than rows).
func bruteAssign(cost [][]float64, i int, used map[int]bool) float64 {
	rows, cols := len(cost), len(cost[0])
	if i == rows || len(used) == cols {
		return 0
	}
	best := math.Inf(1)
	if rows-i > cols-len(used) { // this row may stay unassigned
		best = bruteAssign(cost, i+1, used)
	}
	for j := 0; j < cols; j++ {
		if used[j] {
			continue
		}
		used[j] = true
		best = math.Min(best, cost[i][j]+bruteAssign(cost, i+1, used))
		delete(used, j)
	}
	return best
}
