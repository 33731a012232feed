package rewards

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

func TestDiag(t *testing.T) {
	for _, f := range strings.Split(os.Getenv("DIAG"), ",") {
		if f == "" {
			continue
		}
		c, err := assets.Load("../../shared/data/" + f)
		if err != nil {
			t.Fatal(err)
		}
		rep, _ := Score(c, Options{Poses: 4})
		fmt.Printf("%s V=%d T=%d J=%d score %.3f %s\n", f, len(c.Mesh.Positions), len(c.Mesh.Triangles), c.Skeleton.NumJoints(), rep.Score, fmtRewards(rep.Rewards))
		fmt.Printf("  loc %+v\n  def %+v\n", *rep.Details.Locality, *rep.Details.Deformation)
		for _, p := range rep.Problems {
			fmt.Println("  ", p)
		}
	}
}
