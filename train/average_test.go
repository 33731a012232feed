package train

import (
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/rigmodel"
)

func TestAverage(t *testing.T) {
	a, err := rigmodel.NewModel(modeltest.TinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rigmodel.NewModel(modeltest.TinyConfig, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		weights []float64
		wa      float64
	}{
		{"equal by default", nil, 0.5},
		{"normalized", []float64{3, 1}, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			avg, err := Average([]*rigmodel.Model{a, b}, tc.weights)
			if err != nil {
				t.Fatal(err)
			}
			pa, pb, pm := a.Params(), b.Params(), avg.Params()
			for k := range pm {
				da, db, dm := pa[k].Value.Data().([]float32), pb[k].Value.Data().([]float32), pm[k].Value.Data().([]float32)
				for e := range dm {
					want := tc.wa*float64(da[e]) + (1-tc.wa)*float64(db[e])
					if math.Abs(float64(dm[e])-want) > 1e-6 {
						t.Fatalf("%s[%d] = %g, want %g", pm[k].Name, e, dm[e], want)
					}
				}
			}
		})
	}
}

func TestAverageRejects(t *testing.T) {
	a, err := rigmodel.NewModel(modeltest.TinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	wide := modeltest.TinyConfig
	wide.DModel *= 2
	b, err := rigmodel.NewModel(wide, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		models  []*rigmodel.Model
		weights []float64
		want    string
	}{
		{"no models", nil, nil, "no models"},
		{"other config", []*rigmodel.Model{a, b}, nil, "config"},
		{"weight count", []*rigmodel.Model{a, a}, []float64{1}, "1 weights for 2 models"},
		{"zero weight", []*rigmodel.Model{a, a}, []float64{1, 0}, "positive"},
		{"NaN weight", []*rigmodel.Model{a, a}, []float64{math.NaN(), 1}, "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Average(tc.models, tc.weights)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
