package anatomy

import "math"

// assign solves the assignment problem: it returns, for each row of cost, the
// column assigned to it (-1 for none) so that no column is used twice and the summed
// cost of the assigned pairs is least. Every row gets a column when there are at
// least as many columns as rows, and every column a row otherwise. It is the
// Hungarian method with row and column potentials, O(rows² · columns); the
// skeletons it matches have at most a few dozen joints.
func assign(cost [][]float64) []int {
	rows := len(cost)
	if rows == 0 {
		return nil
	}
	cols := len(cost[0])
	if rows <= cols {
		return assignWide(cost, rows, cols)
	}
	t := make([][]float64, cols)
	for j := range t {
		t[j] = make([]float64, rows)
		for i := range cost {
			t[j][i] = cost[i][j]
		}
	}
	out := make([]int, rows)
	for i := range out {
		out[i] = -1
	}
	for j, i := range assignWide(t, cols, rows) {
		out[i] = j
	}
	return out
}

// assignWide solves the assignment for rows ≤ cols. Rows are added one at a time;
// each addition grows a tree of tight edges (reduced cost 0 under the potentials u,
// v) by a Dijkstra-like search until it reaches a free column, then flips the
// alternating path. Indices are 1-based inside, 0 standing for "no row/column".
func assignWide(cost [][]float64, rows, cols int) []int {
	u := make([]float64, rows+1)
	v := make([]float64, cols+1)
	rowOf := make([]int, cols+1) // rowOf[j]: the row holding column j (0: free)
	prev := make([]int, cols+1)  // the column before j on the search's path
	for i := 1; i <= rows; i++ {
		rowOf[0] = i
		j0 := 0
		slack := make([]float64, cols+1)
		for j := range slack {
			slack[j] = math.Inf(1)
		}
		used := make([]bool, cols+1)
		for rowOf[j0] != 0 {
			used[j0] = true
			i0, delta, j1 := rowOf[j0], math.Inf(1), 0
			for j := 1; j <= cols; j++ {
				if used[j] {
					continue
				}
				if c := cost[i0-1][j-1] - u[i0] - v[j]; c < slack[j] {
					slack[j], prev[j] = c, j0
				}
				if slack[j] < delta {
					delta, j1 = slack[j], j
				}
			}
			for j := 0; j <= cols; j++ {
				if used[j] {
					u[rowOf[j]] += delta
					v[j] -= delta
				} else {
					slack[j] -= delta
				}
			}
			j0 = j1
		}
		for j0 != 0 {
			j1 := prev[j0]
			rowOf[j0] = rowOf[j1]
			j0 = j1
		}
	}
	out := make([]int, rows)
	for j := 1; j <= cols; j++ {
		if rowOf[j] != 0 {
			out[rowOf[j]-1] = j - 1
		}
	}
	return out
}
