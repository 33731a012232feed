package main

import (
	"reflect"
	"testing"

	"github.com/rigkit/rigkit/dataset"
)

func TestCountSplit(t *testing.T) {
	train := []dataset.File{{Category: "biped", Family: "a"}, {Category: "prop", Family: "b"}, {Family: "c"}}
	held := []dataset.File{{Category: "biped", Family: "d"}, {Category: "biped", Family: "d"}, {Category: "fish", Family: "e"}}
	want := []splitCount{
		{Category: "(none)", Train: 1},
		{Category: "biped", Train: 1, HeldOut: 2, Families: 1},
		{Category: "fish", HeldOut: 1, Families: 1},
		{Category: "prop", Train: 1},
		{Category: "total", Train: 3, HeldOut: 3, Families: 2},
	}
	if got := countSplit(train, held); !reflect.DeepEqual(got, want) {
		t.Errorf("countSplit =\n%+v\nwant\n%+v", got, want)
	}
}
