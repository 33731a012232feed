package train

import (
	"fmt"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

// TokenizerSkin adapts the skin tokenizer to rigmodel.SkinEncoder: codes of every joint,
// encoded with opt, rearranged into token order.
func TokenizerSkin(t *skincodec.SkinTokenizer, opt skincodec.Options) rigmodel.SkinEncoder {
	return tokenizerSkin{t, opt}
}

type tokenizerSkin struct {
	t   *skincodec.SkinTokenizer
	opt skincodec.Options
}

func (a tokenizerSkin) K() int { return a.t.K() }

func (a tokenizerSkin) EncodeSkin(c *character.Character, order tokens.Order) ([][]int, error) {
	all, err := a.t.EncodeAllWith(c, a.opt)
	if err != nil {
		return nil, err
	}
	codes := make([][]int, len(order))
	for i, j := range order {
		if j < 0 || j >= len(all) {
			return nil, fmt.Errorf("skin codes: token-order joint %d maps to joint %d of %d", i, j, len(all))
		}
		codes[i] = all[j]
	}
	return codes, nil
}
