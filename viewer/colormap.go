package viewer

import "math"

// heat maps a weight in [0,1] to a blue→cyan→green→yellow→red ramp (values outside
// the range are clamped; NaN is drawn as 0).
func heat(w float64) [3]float32 {
	if math.IsNaN(w) || w < 0 {
		w = 0
	}
	if w > 1 {
		w = 1
	}
	stops := [...][3]float32{
		{0.10, 0.15, 0.75}, // blue
		{0.00, 0.70, 0.90}, // cyan
		{0.10, 0.80, 0.20}, // green
		{0.95, 0.85, 0.10}, // yellow
		{0.90, 0.10, 0.05}, // red
	}
	x := w * float64(len(stops)-1)
	i := int(x)
	if i >= len(stops)-1 {
		return stops[len(stops)-1]
	}
	t := float32(x - float64(i))
	a, b := stops[i], stops[i+1]
	return [3]float32{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

// influenceColor is the color of a vertex moved by n joints: gray for none (an
// orphan), then blue, green, yellow, orange, red for 1..4, magenta above 4.
func influenceColor(n int) [3]float32 {
	switch {
	case n <= 0:
		return [3]float32{0.35, 0.35, 0.35}
	case n == 1:
		return [3]float32{0.20, 0.35, 0.85}
	case n == 2:
		return [3]float32{0.15, 0.75, 0.30}
	case n == 3:
		return [3]float32{0.95, 0.85, 0.15}
	case n == 4:
		return [3]float32{0.95, 0.50, 0.10}
	default:
		return [3]float32{0.85, 0.15, 0.80}
	}
}
