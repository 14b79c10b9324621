package eval

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"

	"github.com/evotune/evotune/engine"
)

// Version identifies what s computes in this build: a digest of its name and
// feature names, and of its feature vectors and default evaluation on 256
// fixed pseudo-random boards. Two builds whose set of that name would
// evaluate some board differently get different versions, so that a worker
// on another machine, built from other sources, refuses a job rather than
// play other games than the coordinator asked for. It is computed once per
// set (a few milliseconds) and must not change for an unchanged set: a
// resumed run's workers compare it with their own.
func (s *FeatureSet) Version() string {
	s.version.once.Do(func() {
		h := sha256.New()
		h.Write([]byte(s.Name))
		for _, f := range s.Features {
			h.Write([]byte{0})
			h.Write([]byte(f.Name))
		}
		rng := rand.New(rand.NewPCG(2048, 13))
		var buf [8]byte
		var vec []float64
		put := func(x float64) {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
			h.Write(buf[:])
		}
		def := s.Default()
		for range 256 {
			var b engine.Board
			for cell := range 16 {
				if rng.IntN(3) > 0 {
					b |= engine.Board(1+rng.IntN(13)) << (4 * cell)
				}
			}
			vec = s.FeatureVector(b, nil, vec)
			for _, x := range vec {
				put(x)
			}
			put(def.Evaluate(b))
		}
		s.version.v = hex.EncodeToString(h.Sum(nil)[:6])
	})
	return s.version.v
}
