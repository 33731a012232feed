package unionfind

import "testing"

func TestSet(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		joins  [][2]int
		same   [][2]int
		differ [][2]int
	}{
		{"singletons", 3, nil, [][2]int{{1, 1}}, [][2]int{{0, 1}, {1, 2}}},
		{"chain", 5, [][2]int{{0, 1}, {1, 2}, {3, 4}}, [][2]int{{0, 2}, {2, 0}, {3, 4}}, [][2]int{{0, 3}}},
		{"joined twice", 4, [][2]int{{0, 1}, {1, 0}, {2, 3}, {0, 3}}, [][2]int{{1, 2}}, nil},
	}
	for _, tc := range tests {
		u, u32 := New[int](tc.n), New[int32](tc.n)
		for _, j := range tc.joins {
			u.Union(j[0], j[1])
			u32.Union(int32(j[0]), int32(j[1]))
		}
		for _, p := range tc.same {
			if u.Find(p[0]) != u.Find(p[1]) || u32.Find(int32(p[0])) != u32.Find(int32(p[1])) {
				t.Errorf("%s: %d and %d in different sets", tc.name, p[0], p[1])
			}
		}
		for _, p := range tc.differ {
			if u.Find(p[0]) == u.Find(p[1]) || u32.Find(int32(p[0])) == u32.Find(int32(p[1])) {
				t.Errorf("%s: %d and %d in one set", tc.name, p[0], p[1])
			}
		}
	}
}
