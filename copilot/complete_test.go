package copilot

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/vecmath"
)

// tinyCompleter is a completer over the tests' tiny untrained model, whose
// continuations are arbitrary: what the tests check holds whatever it writes.
func tinyCompleter(t *testing.T) *Completer {
	t.Helper()
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 7)
	if err != nil {
		t.Fatal(err)
	}
	return &Completer{Model: &sampler.Generator{Model: m, InsideJoints: true}, Seed: 3, Temperature: 1}
}

// shared is the prepared completion the tests share (Complete does not change it).
var shared struct {
	once  sync.Once
	p     *Prepared
	given *character.Skeleton
	err   error
}

func prepared(t *testing.T) (*Prepared, *character.Skeleton) {
	t.Helper()
	shared.once.Do(func() {
		rig := modeltest.Rig(t)
		shared.given = Primaries(rig.Skeleton, false)
		shared.p, shared.err = tinyCompleter(t).Prepare(&character.Character{Name: rig.Name, Mesh: rig.Mesh}, shared.given)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.p, shared.given
}

func TestCompleteKeepsGivenJointsAndBounds(t *testing.T) {
	p, given := prepared(t)
	ng := given.NumJoints()
	tests := []Density{
		{Detail: DetailLow}, {Detail: DetailMedium}, {Detail: DetailHigh},
		{Detail: DetailHigh, MaxJoints: ng}, {Detail: DetailHigh, MaxJoints: ng + 2},
	}
	for _, d := range tests {
		t.Run(d.Detail.String(), func(t *testing.T) {
			comp, err := p.Complete(d)
			if err != nil {
				t.Fatal(err)
			}
			sk := comp.Skeleton
			if err := sk.Validate(); err != nil {
				t.Fatal(err)
			}
			for j, n := range given.Names {
				if sk.Names[j] != n || sk.Parents[j] != given.Parents[j] || sk.Position(j) != given.Position(j) {
					t.Fatalf("given joint %d (%s) changed: %s parent %d at %v", j, n, sk.Names[j], sk.Parents[j], sk.Position(j))
				}
			}
			if d.MaxJoints > 0 && sk.NumJoints() > d.MaxJoints {
				t.Fatalf("%d joints, over --max-joints %d", sk.NumJoints(), d.MaxJoints)
			}
			if len(comp.Report.Given) != ng || len(comp.Report.Given)+len(comp.Report.Added) != sk.NumJoints() {
				t.Fatalf("report lists %d given and %d added of %d joints", len(comp.Report.Given), len(comp.Report.Added), sk.NumJoints())
			}
			seen := map[string]bool{}
			for _, n := range sk.Names {
				if seen[n] {
					t.Fatalf("name %q twice", n)
				}
				seen[n] = true
			}
		})
	}
}

func TestCompleteRefusesTooManyGiven(t *testing.T) {
	p, given := prepared(t)
	_, err := p.Complete(Density{Detail: DetailHigh, MaxJoints: given.NumJoints() - 1})
	if err == nil || !strings.Contains(err.Error(), "--max-joints") {
		t.Fatalf("error %v, want the given joints over --max-joints", err)
	}
}

func TestCompleteGrowsWithDetail(t *testing.T) {
	p, _ := prepared(t)
	prev := -1
	for _, d := range Details {
		comp, err := p.Complete(Density{Detail: d})
		if err != nil {
			t.Fatal(err)
		}
		if n := comp.Skeleton.NumJoints(); n < prev {
			t.Fatalf("detail %s: %d joints, fewer than the coarser level's %d", d, n, prev)
		} else {
			prev = n
		}
	}
}

func TestCompleteWithoutModelOrGiven(t *testing.T) {
	rig := modeltest.Rig(t)
	p, err := (&Completer{}).Prepare(&character.Character{Mesh: rig.Mesh}, nil)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := p.Complete(Density{Detail: DetailMedium, MaxJoints: 5})
	if err != nil {
		t.Fatal(err)
	}
	if n := comp.Skeleton.NumJoints(); n == 0 || n > 5 {
		t.Fatalf("%d joints, want 1..5 from the template", n)
	}
	for _, a := range comp.Report.Added {
		if a.Source != sourceTemplate {
			t.Fatalf("joint %s from %q without a model", a.Name, a.Source)
		}
	}
}

func TestNameExtras(t *testing.T) {
	b := &merge{sk: &character.Skeleton{}}
	b.add("Hand", -1, vecmath.Vec3{}, sourceGiven)
	b.source[0], b.unnamed[0] = sourceGiven, false
	b.add("", 0, vecmath.Vec3{1, 0, 0}, sourceModel)
	b.add("", 0, vecmath.Vec3{2, 0, 0}, sourceModel)
	b.add("", 2, vecmath.Vec3{3, 0, 0}, sourceModel)
	b.add("Hand", 0, vecmath.Vec3{4, 0, 0}, sourceTemplate)
	b.nameExtras()
	want := "Hand Hand_extra_1 Hand_extra_2 Hand_extra_2_extra_1 Hand_2"
	if got := strings.Join(b.sk.Names, " "); got != want {
		t.Fatalf("names %q, want %q", got, want)
	}
}

func TestWithinBounds(t *testing.T) {
	mesh := &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {1, 2, 1}}}
	tests := []struct {
		name string
		at   vecmath.Vec3
		ok   bool
	}{{"inside", vecmath.Vec3{0.5, 1, 0.5}, true}, {"in the margin", vecmath.Vec3{0.5, 2.09, 0.5}, true}, {"below", vecmath.Vec3{0.5, -1, 0.5}, false}}
	for _, tt := range tests {
		sk := &character.Skeleton{Names: []string{"j"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Translate4(tt.at)}}
		if err := withinBounds(mesh, sk); (err == nil) != tt.ok {
			t.Errorf("%s: error %v", tt.name, err)
		}
	}
}

func TestTemplateMovesOnlyNearNamesakes(t *testing.T) {
	tmpl := &character.Skeleton{Names: []string{"root", "tail"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0, 5, 0}), vecmath.Translate4(vecmath.Vec3{0, 5, -3})}}
	tests := []struct {
		name     string
		root     vecmath.Vec3
		wantTail vecmath.Vec3
	}{
		{"near: the chain meets it", vecmath.Vec3{0, 5.1, 0}, vecmath.Vec3{0, 5.1, -3}},
		{"far: the chain stays", vecmath.Vec3{0, 0, 0}, vecmath.Vec3{0, 5, -3}},
	}
	for _, tt := range tests {
		b := &merge{sk: &character.Skeleton{}, radius: 0.05}
		b.add("root", -1, tt.root, sourceGiven)
		b.unnamed[0] = false
		b.addTemplate(tmpl)
		if b.sk.NumJoints() != 2 || b.sk.Names[1] != "tail" || b.sk.Parents[1] != 0 {
			t.Fatalf("%s: joints %v parents %v", tt.name, b.sk.Names, b.sk.Parents)
		}
		if got := b.sk.Position(1); got.Dist(tt.wantTail) > 1e-12 {
			t.Errorf("%s: tail at %v, want %v", tt.name, got, tt.wantTail)
		}
	}
}

// TestLowDetailWithoutContinuations checks that a preparation without the model's
// continuations (what Rigger does at DetailLow, whose continuations add no joint)
// completes to the same skeleton and report as one with them, at low detail and
// with the joint bound at the given count; and that it samples none.
func TestLowDetailWithoutContinuations(t *testing.T) {
	p, given := prepared(t)
	rig := modeltest.Rig(t)
	bare, err := tinyCompleter(t).prepare(&character.Character{Name: rig.Name, Mesh: rig.Mesh}, given, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.points) == 0 || len(bare.points) != 0 || bare.lat == nil {
		t.Fatalf("%d continuations with them, %d without (latents %v)", len(p.points), len(bare.points), bare.lat != nil)
	}
	for _, d := range []Density{{Detail: DetailLow}, {Detail: DetailLow, MaxJoints: given.NumJoints()}} {
		want, err := p.Complete(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bare.Complete(d)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want.Skeleton, got.Skeleton
		if !slices.Equal(w.Names, g.Names) || !slices.Equal(w.Parents, g.Parents) || !slices.Equal(w.BindWorld, g.BindWorld) {
			t.Fatalf("%+v: %d joints without continuations, %d with", d, g.NumJoints(), w.NumJoints())
		}
		if len(want.Report.Added) != len(got.Report.Added) || want.Report.Pruned != got.Report.Pruned {
			t.Fatalf("%+v: reports differ: %d added, %d pruned against %d, %d", d, len(got.Report.Added), got.Report.Pruned, len(want.Report.Added), want.Report.Pruned)
		}
	}
}
