package train

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
)

func TestExampleStreamInOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		var made atomic.Int64
		s := newOrderedStream(workers, 4, 10, func(k int64) *rigmodel.Example {
			made.Add(1)
			// Later examples finish first: order must come from the index, not timing.
			time.Sleep(time.Duration(20-k%7) * 100 * time.Microsecond)
			return &rigmodel.Example{Name: string(rune('a' + k%26)), SkeletonLen: int(k)}
		})
		for k := 10; k < 40; k++ {
			if ex := s.next(); ex.SkeletonLen != k {
				t.Fatalf("workers %d: got example %d, want %d", workers, ex.SkeletonLen, k)
			}
		}
		s.close()
		s.close() // twice is fine
		// Workers run at most ahead examples (plus the ones in hand) past the last taken.
		if n := made.Load(); n > 30+4+int64(workers)+1 {
			t.Errorf("workers %d: made %d examples for 30 taken", workers, n)
		}
	}
}

func TestMakeOrderedKeepsIndices(t *testing.T) {
	got := makeOrdered(17, 4, func(k int64) *rigmodel.Example {
		if k%5 == 0 {
			return nil
		}
		return &rigmodel.Example{SkeletonLen: int(k)}
	})
	if len(got) != 17 {
		t.Fatalf("%d examples, want 17", len(got))
	}
	for i, ex := range got {
		if (ex == nil) != (i%5 == 0) || (ex != nil && ex.SkeletonLen != i) {
			t.Fatalf("example %d: %+v", i, ex)
		}
	}
}

// TestTrainSameWithAnyDataWorkers trains the tiny model twice, with one example
// worker and with four: the checkpoints must be bitwise equal, since each example
// is a function of its index, not of which goroutine made it or when.
func TestTrainSameWithAnyDataWorkers(t *testing.T) {
	dir := t.TempDir()
	chars := map[string]*character.Character{}
	for _, n := range []string{"a.glb", "b.glb", "c.glb", "d.glb"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
		chars[n] = modeltest.Rig(t)
	}
	var ckpts [][]byte
	for _, workers := range []int{1, 4} {
		out := filepath.Join(t.TempDir(), "m.safetensors")
		opt := Options{Out: out, Config: modeltest.TinyConfig, Skin: modeltest.FakeSkin{}, SkinID: "fake",
			Data: Data{Inputs: []string{dir}, Load: memLoad(chars), Augment: DefaultAugment, Pool: 3,
				FreshSynthetic: 0.3, Workers: workers},
			Schedule:    Schedule{Steps: 3, Batch: 2, LR: 1e-3},
			Checkpoints: Checkpoints{EvalEvery: 3, SaveEvery: 3}}
		if _, err := Run(opt); err != nil {
			t.Fatal(err)
		}
		m, _, err := rigmodel.LoadCheckpointFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var bits []byte
		for _, p := range m.Params() {
			for _, v := range p.Data() {
				bits = binary.LittleEndian.AppendUint32(bits, math.Float32bits(v))
			}
		}
		ckpts = append(ckpts, bits)
	}
	if !bytes.Equal(ckpts[0], ckpts[1]) {
		t.Fatal("training with 1 and 4 data workers gave different weights")
	}
}
