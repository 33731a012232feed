// Package unionfind groups indices into connected sets (disjoint-set forest with
// path halving). Mesh pieces, welded vertices and finger outlines are all found
// this way; one implementation serves them, over int or int32 indices (int32
// halves the memory of a million-vertex mesh's forest).
package unionfind

// Set is a disjoint-set forest over 0..len-1: each element's entry is its parent,
// a root is its own parent.
type Set[T ~int | ~int32] []T

// New returns n singleton sets.
func New[T ~int | ~int32](n int) Set[T] {
	u := make(Set[T], n)
	for i := range u {
		u[i] = T(i)
	}
	return u
}

// Find returns the root of x's set, halving the path on the way.
func (u Set[T]) Find(x T) T {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

// Union joins the sets of a and b.
func (u Set[T]) Union(a, b T) {
	if ra, rb := u.Find(a), u.Find(b); ra != rb {
		u[ra] = rb
	}
}
