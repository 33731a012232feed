package eval

import (
	"errors"
	"math"
)

// kendallTau returns Kendall's rank correlation τ-b between x and y: the
// concordant minus the discordant pairs, divided by the geometric mean of the pairs
// untied in x and the pairs untied in y. It is 1 when y orders the items as x does,
// −1 when it reverses them and near 0 when the orders are unrelated; ties count in
// neither the numerator nor their own side's denominator. The rank agreement of the
// rewards (does a higher score mean a better rig?) is kendallTau(score,
// −deformation error) over one mesh's candidate rigs. It returns an error for
// slices of different lengths, fewer than two items, a non-finite value, or when
// every x or every y is tied (τ is undefined). O(n²): candidate sets are small.
func kendallTau(x, y []float64) (float64, error) {
	if len(x) != len(y) {
		return 0, errors.New("kendall tau: slices of different lengths")
	}
	if len(x) < 2 {
		return 0, errors.New("kendall tau: fewer than two items")
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return 0, errors.New("kendall tau: non-finite value")
		}
	}
	var conc, disc, untiedX, untiedY float64
	for i := 0; i < len(x); i++ {
		for j := i + 1; j < len(x); j++ {
			dx, dy := sign(x[i]-x[j]), sign(y[i]-y[j])
			if dx != 0 {
				untiedX++
			}
			if dy != 0 {
				untiedY++
			}
			switch s := dx * dy; {
			case s > 0:
				conc++
			case s < 0:
				disc++
			}
		}
	}
	if untiedX == 0 || untiedY == 0 {
		return 0, errors.New("kendall tau: every value of one side is tied")
	}
	return (conc - disc) / math.Sqrt(untiedX*untiedY), nil
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
