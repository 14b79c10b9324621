package population

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// plateau is a sphere with flat steps: it produces ties (ranked by index)
// and, near the optimum, the tolfun stops that trigger IPOP restarts.
func plateau(x []float64) float64 { return math.Floor(sphere(x) * 4) }

type stateCase struct {
	name string
	new  func() (fullOptimizer, error)
	f    func([]float64) float64
}

func stateCases() []stateCase {
	bounds := Config{X0: []float64{1, -2, 0.5}, Scale: []float64{1, 2, 0.1},
		Lower: []float64{0, -5, math.Inf(-1)}, Upper: []float64{3, 1, 1}, Seed: 11, TargetF: ptr(-1.0)}
	ipop := Config{X0: []float64{1, 1, 1}, Seed: 5, Restarts: IPOP, Sigma0: 1}
	return []stateCase{
		{"cmaes", func() (fullOptimizer, error) {
			return NewCMAES(CMAESConfig{Config: Config{X0: []float64{1, 2, 3, 4, 5}, Seed: 1}})
		}, rosenbrock},
		{"cmaes-active-bounds", func() (fullOptimizer, error) {
			return NewCMAES(CMAESConfig{Config: bounds, Active: true})
		}, sphere},
		{"cmaes-ipop", func() (fullOptimizer, error) { return NewCMAES(CMAESConfig{Config: ipop}) }, plateau},
		{"cmaes-lra-ipop", func() (fullOptimizer, error) {
			return NewCMAES(CMAESConfig{Config: ipop, LRA: true})
		}, plateau},
		{"cmaes-mirrored-active-bounds", func() (fullOptimizer, error) {
			return NewCMAES(CMAESConfig{Config: bounds, Active: true, Mirrored: true})
		}, sphere},
		{"cmaes-mirrored-lra-ipop", func() (fullOptimizer, error) {
			c := ipop
			c.Lambda = 7 // odd: the last candidate has no partner
			return NewCMAES(CMAESConfig{Config: c, LRA: true, Mirrored: true})
		}, plateau},
		{"cmaes-settle-ipop", func() (fullOptimizer, error) {
			return NewCMAES(CMAESConfig{Config: ipop, Settle: true})
		}, plateau},
		{"cmaes-mirrored-settle-bounds", func() (fullOptimizer, error) {
			return NewCMAES(CMAESConfig{Config: bounds, Mirrored: true, Settle: true})
		}, noisySphere(3)},
		{"cem", func() (fullOptimizer, error) {
			return NewCEM(CEMConfig{Config: Config{X0: []float64{1, 2, 3, 4, 5}, Seed: 2}})
		}, rosenbrock},
		{"cem-full-bounds", func() (fullOptimizer, error) { return NewCEM(CEMConfig{Config: bounds, Full: true}) }, sphere},
		{"cem-ipop-nonoise", func() (fullOptimizer, error) {
			return NewCEM(CEMConfig{Config: ipop, Noise: -1, Elite: 0.5})
		}, plateau},
	}
}

// step runs one generation and returns its candidates.
func step(t *testing.T, o Optimizer, f func([]float64) float64) [][]float64 {
	t.Helper()
	xs := o.Ask()
	fit := make([]float64, len(xs))
	for i, x := range xs {
		fit[i] = f(x)
	}
	if err := o.Tell(fit); err != nil {
		t.Fatal(err)
	}
	return xs
}

func marshal(t *testing.T, o Optimizer) []byte {
	t.Helper()
	b, err := o.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// f64bytes encodes v as the state does, without a length.
func f64bytes(v []float64) []byte {
	var e encoder
	for _, x := range v {
		e.f64(x)
	}
	return e.b
}

func sameBits(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
				return false
			}
		}
	}
	return true
}

// TestSaveRestore runs G generations straight and 10 + save + restore +
// (G−10), and compares every candidate and the final state bit for bit.
func TestSaveRestore(t *testing.T) {
	for _, c := range stateCases() {
		t.Run(c.name, func(t *testing.T) {
			const total, cut = 30, 10
			gens := total
			if strings.Contains(c.name, "ipop") {
				gens = 90 // long enough for restarts
			}
			straight, err := c.new()
			if err != nil {
				t.Fatal(err)
			}
			var want [][][]float64
			for range gens {
				want = append(want, step(t, straight, c.f))
			}
			a, err := c.new()
			if err != nil {
				t.Fatal(err)
			}
			for g := range cut {
				if !sameBits(step(t, a, c.f), want[g]) {
					t.Fatalf("generation %d differs before any restore", g)
				}
			}
			if o, ok := a.(*CMAES); ok && o.lraOn && !(o.lra.etaMean < 1 && o.lra.etaSigma < 1) {
				t.Fatalf("learning rates %v, %v at the cut: the state saved is the initial one", o.lra.etaMean, o.lra.etaSigma)
			}
			if o, ok := a.(*CMAES); ok && o.settleOn && (o.settle.t == 0 || len(o.settle.fits) == 0) {
				t.Fatalf("settling after %d generations, %d fitness values at the cut: the state saved is the initial one", o.settle.t, len(o.settle.fits))
			}
			saved := marshal(t, a)
			b, err := Unmarshal(saved)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(marshal(t, b), saved) {
				t.Fatal("restored state marshals differently")
			}
			for g := cut; g < gens; g++ {
				if !sameBits(step(t, b, c.f), want[g]) {
					t.Fatalf("generation %d differs after restore", g)
				}
			}
			if !bytes.Equal(marshal(t, b), marshal(t, straight)) {
				t.Fatal("final states differ")
			}
			if strings.Contains(c.name, "ipop") && straight.Restarts() == 0 {
				t.Error("no restart happened: the test does not cover restart bookkeeping")
			}
		})
	}
}

// TestSaveRestoreMidGeneration saves after Ask and some TellAt calls.
func TestSaveRestoreMidGeneration(t *testing.T) {
	for _, c := range stateCases() {
		t.Run(c.name, func(t *testing.T) {
			a, _ := c.new()
			ref, _ := c.new()
			for range 7 {
				step(t, a, c.f)
				step(t, ref, c.f)
			}
			xs := a.Ask()
			want := ref.Ask()
			for _, i := range []int{2, 0} {
				if err := a.TellAt(i, c.f(xs[i])); err != nil {
					t.Fatal(err)
				}
			}
			restored, err := Unmarshal(marshal(t, a))
			if err != nil {
				t.Fatal(err)
			}
			b := restored.(fullOptimizer)
			got := b.Ask()
			if !sameBits(got, want) {
				t.Fatal("restored pending candidates differ")
			}
			for i, x := range got {
				if i == 0 || i == 2 {
					if err := b.TellAt(i, 0); err == nil {
						t.Fatal("a value told before saving was forgotten")
					}
					continue
				}
				if err := b.TellAt(i, c.f(x)); err != nil {
					t.Fatal(err)
				}
			}
			step(t, ref, c.f) // completes ref's generation with the same values
			for range 5 {
				if !sameBits(step(t, b, c.f), step(t, ref, c.f)) {
					t.Fatal("runs differ after a mid-generation restore")
				}
			}
		})
	}
}

// TestTellOrder: telling the values by index in shuffled orders gives the
// same run, bit for bit, as telling them all at once.
func TestTellOrder(t *testing.T) {
	for _, c := range stateCases() {
		t.Run(c.name, func(t *testing.T) {
			ref, _ := c.new()
			shuffled, _ := c.new()
			rng := rand.New(rand.NewPCG(7, 7))
			for g := range 40 {
				want := step(t, ref, c.f)
				xs := shuffled.Ask()
				if !sameBits(xs, want) {
					t.Fatalf("generation %d: candidates differ", g)
				}
				for _, i := range rng.Perm(len(xs)) {
					if err := shuffled.TellAt(i, c.f(xs[i])); err != nil {
						t.Fatal(err)
					}
				}
				if shuffled.Generation() != g+1 {
					t.Fatalf("generation %d did not complete", g)
				}
				if !bytes.Equal(marshal(t, ref), marshal(t, shuffled)) {
					t.Fatalf("generation %d: states differ", g)
				}
			}
		})
	}
}

func TestUnmarshalRejects(t *testing.T) {
	o, _ := stateCases()[0].new()
	step(t, o, sphere)
	good := marshal(t, o)
	cem, _ := NewCEM(CEMConfig{Config: Config{X0: []float64{1, 2, 3, 4, 5}, Seed: 2}})
	bad := map[string][]byte{
		"empty":     nil,
		"garbage":   []byte("hello, world, this is not a state"),
		"truncated": good[:len(good)-9],
		"flipped":   append(append([]byte(nil), good[:40]...), append([]byte{good[40] ^ 1}, good[41:]...)...),
		"version":   append(append([]byte(nil), good[:5]...), append([]byte{9, 9}, good[7:]...)...),
		"trailing":  fixCRC(append(append([]byte(nil), good[:len(good)-4]...), 0, 0, 0, 0, 0)),
	}
	for name, data := range bad {
		var c CMAES
		if err := c.UnmarshalBinary(data); !errorsIs(err, ErrState) {
			t.Errorf("%s: %v, want ErrState", name, err)
		}
	}
	// A version 2 state says LRA is on; one that says off is not canonical
	// (it would marshal back as version 1) and is refused.
	lra, _ := NewCMAES(CMAESConfig{Config: Config{X0: []float64{1, 2}, Seed: 4}, LRA: true})
	step(t, lra, sphere)
	on := marshal(t, lra)
	var cfg encoder
	cfg.config(&lra.cfg)
	at := len(stateMagic) + 3 + len(cfg.b) + 1 // after the header, config and active
	if on[5] != 2 || on[at] != 1 {
		t.Fatalf("LRA state: version %d, flag byte %d: the layout assumed here changed", on[5], on[at])
	}
	off := append([]byte(nil), on...)
	off[at] = 0
	var c CMAES
	if err := c.UnmarshalBinary(fixCRC(off)); !errorsIs(err, ErrState) {
		t.Errorf("version 2 state with LRA off: %v, want ErrState", err)
	}
	// A version 3 state says mirrored sampling is on, and its pending
	// candidates come in mirrored pairs.
	mir, _ := NewCMAES(CMAESConfig{Config: Config{X0: []float64{1, 2}, Seed: 4}, Mirrored: true})
	step(t, mir, sphere)
	mir.Ask()
	on = marshal(t, mir)
	if on[5] != 3 || on[at] != 0 || on[at+1] != 1 {
		t.Fatalf("mirrored state: version %d, flag bytes %d %d: the layout assumed here changed", on[5], on[at], on[at+1])
	}
	off = append([]byte(nil), on...)
	off[at+1] = 0
	if err := c.UnmarshalBinary(fixCRC(off)); !errorsIs(err, ErrState) {
		t.Errorf("version 3 state with mirrored sampling off: %v, want ErrState", err)
	}
	z := bytes.Index(on, f64bytes(mir.z[:2]))
	if z < 0 || bytes.Index(on, f64bytes(mir.z[2:4])) != z+16 {
		t.Fatal("mirrored state: its pending samples not found where expected")
	}
	broken := append([]byte(nil), on...)
	binary.LittleEndian.PutUint64(broken[z+16:], math.Float64bits(mir.z[2]+1)) // row 1 no longer -row 0
	if err := c.UnmarshalBinary(fixCRC(broken)); !errorsIs(err, ErrState) || !strings.Contains(err.Error(), "mirrored") {
		t.Errorf("mirrored state whose pair is not mirrored: %v, want ErrState naming it", err)
	}
	if err := c.UnmarshalBinary(marshal(t, cem)); !errorsIs(err, ErrState) {
		t.Errorf("CEM state into CMAES: %v", err)
	}
	// CEM has none of the later options: a CEM state is version 1.
	cemState := marshal(t, cem)
	cemState[5] = 2
	var ce CEM
	if err := ce.UnmarshalBinary(fixCRC(cemState)); !errorsIs(err, ErrState) {
		t.Errorf("version 2 CEM state: %v, want ErrState", err)
	}
	if err := c.UnmarshalBinary(good); err != nil {
		t.Fatal(err)
	}
	if _, err := new(CMAES).MarshalBinary(); err == nil {
		t.Error("zero CMAES marshalled")
	}
}

// fixCRC recomputes the trailing checksum, so that fuzzed bytes reach the
// body decoder instead of stopping at the checksum.
func fixCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// FuzzUnmarshal: the decoder never panics; what it accepts marshals back
// to the same bytes and can run.
func FuzzUnmarshal(f *testing.F) {
	for _, c := range stateCases() {
		o, err := c.new()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(mustMarshal(o))
		for range 3 {
			xs := o.Ask()
			fit := make([]float64, len(xs))
			for i, x := range xs {
				fit[i] = c.f(x)
			}
			o.Tell(fit)
		}
		f.Add(mustMarshal(o))
		o.Ask()
		o.TellAt(1, 3)
		f.Add(mustMarshal(o))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range [][]byte{data, fixCRC(data)} {
			o, err := Unmarshal(d)
			if err != nil {
				continue
			}
			if !bytes.Equal(mustMarshal(o), d) {
				t.Fatal("accepted state marshals differently")
			}
			for range 2 {
				xs := o.Ask()
				fit := make([]float64, len(xs))
				for i, x := range xs {
					fit[i] = sphere(x)
					if math.IsNaN(fit[i]) {
						fit[i] = math.Inf(1)
					}
				}
				if err := o.Tell(fit); err != nil && !errorsIs(err, ErrNaN) {
					t.Fatal(err)
				}
			}
		}
	})
}

func mustMarshal(o Optimizer) []byte {
	b, err := o.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

// TestNoisy runs CMA-ES on pure noise: without Noisy the value-based stop
// conditions end it; with Noisy they stay off, and the flag survives a
// save and restore.
func TestNoisy(t *testing.T) {
	for _, noisy := range []bool{false, true} {
		o, err := NewCMAES(CMAESConfig{Config: Config{X0: []float64{1, 2, 3, 4, 5}, Seed: 3, Noisy: noisy}})
		if err != nil {
			t.Fatal(err)
		}
		noise := rand.New(rand.NewPCG(1, 2))
		stopped := Reason("")
		for g := 0; g < 600 && stopped == ""; g++ {
			f := make([]float64, len(o.Ask()))
			for i := range f {
				f[i] = noise.NormFloat64()
			}
			if err := o.Tell(f); err != nil {
				t.Fatal(err)
			}
			stopped, _ = o.Stop()
		}
		if noisy && stopped != "" {
			t.Errorf("Noisy: stopped on %s", stopped)
		}
		if !noisy && stopped != StopStagnation && stopped != StopTolFun {
			t.Errorf("without Noisy: stop %q, want stagnation or tolfun", stopped)
		}
		data, _ := o.MarshalBinary()
		var back CMAES
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if back.cfg.Noisy != noisy {
			t.Errorf("Noisy = %v after a round trip, want %v", back.cfg.Noisy, noisy)
		}
	}
}

// TestNoisyIPOP: under IPOP the value-based conditions would restart the
// search; with Noisy they cannot, so pure noise never restarts it, while
// the same run without Noisy restarts on stagnation.
func TestNoisyIPOP(t *testing.T) {
	for _, noisy := range []bool{false, true} {
		o, err := NewCMAES(CMAESConfig{Config: Config{X0: []float64{1, 2, 3, 4, 5}, Seed: 3, Noisy: noisy, Restarts: IPOP}})
		if err != nil {
			t.Fatal(err)
		}
		noise := rand.New(rand.NewPCG(1, 2))
		for range 600 {
			f := make([]float64, len(o.Ask()))
			for i := range f {
				f[i] = noise.NormFloat64()
			}
			if err := o.Tell(f); err != nil {
				t.Fatal(err)
			}
		}
		if r, stop := o.Stop(); stop {
			t.Errorf("Noisy = %v: stopped on %s", noisy, r)
		}
		if noisy && o.Restarts() != 0 {
			t.Errorf("Noisy: %d restarts on pure noise", o.Restarts())
		}
		if !noisy && o.Restarts() == 0 {
			t.Error("without Noisy: no restart on pure noise")
		}
	}
}
