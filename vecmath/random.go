package vecmath

import "math/rand"

// RandomUnit draws a unit vector uniformly over the sphere from rng (rejection
// from the cube), so that a seeded perturbation moves every joint the same way
// on every machine.
func RandomUnit(rng *rand.Rand) Vec3 {
	for {
		v := Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
		if n := v.Len(); n > 1e-3 && n <= 1 {
			return v.Scale(1 / n)
		}
	}
}
