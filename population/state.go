package population

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// State format (version 1 to 4), little endian:
//
//	"EVPOP" | version u16 | kind u8 | config | core state | method state | CRC-32 (IEEE) u32
//
// Version 2 adds CMA-ES's learning rate adaptation: a bool after active,
// and when it is true the adaptation's state after the method's. Version 3
// adds CMA-ES's mirrored sampling, a bool (true) after that one. Version 4
// adds settling: that bool may then be false, a bool (true) follows it, and
// settling's state comes last. A state is written in the oldest version
// that holds it (version 4 only when settling, 3 only when mirrored, 2 only
// with LRA, else 1), so that the bytes of every state that could be written
// before stay the same; all four are read. CEM's states are version 1.
// Floats are stored as their IEEE-754 bits, so a state round-trips bit for
// bit; slices carry a u32 length. The CRC covers everything before it.
const (
	stateMagic   = "EVPOP"
	stateVersion = 4 // the newest this build reads and writes

	kindCMAES byte = 1
	kindCEM   byte = 2
)

type encoder struct{ b []byte }

func (e *encoder) u8(v byte)     { e.b = append(e.b, v) }
func (e *encoder) u32(v uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) int(v int)     { e.u64(uint64(int64(v))) }
func (e *encoder) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}
func (e *encoder) bytes(v []byte) { e.u32(uint32(len(v))); e.b = append(e.b, v...) }
func (e *encoder) f64s(v []float64) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.f64(x)
	}
}
func (e *encoder) bools(v []bool) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.bool(x)
	}
}

func (e *encoder) header(kind byte, version uint16) {
	e.b = append(e.b, stateMagic...)
	e.b = binary.LittleEndian.AppendUint16(e.b, version)
	e.u8(kind)
}

func (e *encoder) finish() []byte {
	return binary.LittleEndian.AppendUint32(e.b, crc32.ChecksumIEEE(e.b))
}

// decoder reads what encoder wrote. The first error sticks; later reads
// return zero values, so decoding code checks err once at the end (or
// before it relies on a value, such as a length).
type decoder struct {
	b       []byte
	err     error
	version uint16 // the state's format version
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrState}, args...)...)
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail("truncated")
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u8() byte {
	if v := d.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if v := d.take(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if v := d.take(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

// int reads a count that must lie in [lo, hi].
func (d *decoder) int(name string, lo, hi int) int {
	v := int64(d.u64())
	if d.err == nil && (v < int64(lo) || v > int64(hi)) {
		d.fail("%s = %d out of range [%d, %d]", name, v, lo, hi)
		return lo
	}
	return int(v)
}

func (d *decoder) bool() bool {
	v := d.u8()
	if v > 1 {
		d.fail("bad boolean %d", v)
	}
	return v == 1
}

// length reads a slice length that must lie in [0, max] and fit in what is
// left at size bytes per element.
func (d *decoder) length(name string, max, size int) int {
	n := int(d.u32())
	if d.err != nil {
		return 0
	}
	if n > max || n*size > len(d.b) {
		d.fail("%s: length %d too large", name, n)
		return 0
	}
	return n
}

func (d *decoder) bytes(name string, max int) []byte {
	n := d.length(name, max, 1)
	return append([]byte(nil), d.take(n)...)
}

// f64s reads a float slice whose length must be want (or, when want < 0,
// at most -want).
func (d *decoder) f64s(name string, want int) []float64 {
	max := want
	if want < 0 {
		max = -want
	}
	n := d.length(name, max, 8)
	if d.err != nil {
		return nil
	}
	if want >= 0 && n != want {
		d.fail("%s: length %d, want %d", name, n, want)
		return nil
	}
	if n == 0 {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = d.f64()
	}
	return v
}

// finiteF64s is f64s for values that must be finite.
func (d *decoder) finiteF64s(name string, want int) []float64 {
	v := d.f64s(name, want)
	for i, x := range v {
		if !finite(x) {
			d.fail("%s[%d] = %v", name, i, x)
			break
		}
	}
	return v
}

func (d *decoder) bools(name string, want int) []bool {
	n := d.length(name, want, 1)
	if d.err == nil && n != want {
		d.fail("%s: length %d, want %d", name, n, want)
	}
	if d.err != nil {
		return nil
	}
	v := make([]bool, n)
	for i := range v {
		v[i] = d.bool()
	}
	return v
}

// openState checks magic, version, kind and checksum and returns a decoder
// positioned after the header.
func openState(data []byte, kind byte) (*decoder, error) {
	k, err := peekKind(data)
	if err != nil {
		return nil, err
	}
	if k != kind {
		return nil, fmt.Errorf("%w: state of a %s, not a %s", ErrState, kindName(k), kindName(kind))
	}
	body := data[len(data)-4:]
	if crc32.ChecksumIEEE(data[:len(data)-4]) != binary.LittleEndian.Uint32(body) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrState)
	}
	return &decoder{b: data[len(stateMagic)+3 : len(data)-4], version: binary.LittleEndian.Uint16(data[len(stateMagic):])}, nil
}

func peekKind(data []byte) (byte, error) {
	if len(data) < len(stateMagic)+3+4 || string(data[:len(stateMagic)]) != stateMagic {
		return 0, fmt.Errorf("%w: not an optimizer state", ErrState)
	}
	if v := binary.LittleEndian.Uint16(data[len(stateMagic):]); v < 1 || v > stateVersion {
		return 0, fmt.Errorf("%w: format version %d, this build reads 1 to %d", ErrState, v, stateVersion)
	}
	k := data[len(stateMagic)+2]
	if k != kindCMAES && k != kindCEM {
		return 0, fmt.Errorf("%w: unknown optimizer kind %d", ErrState, k)
	}
	return k, nil
}

func kindName(k byte) string {
	switch k {
	case kindCMAES:
		return "CMA-ES"
	case kindCEM:
		return "CEM"
	}
	return "unknown optimizer"
}

// config writes a resolved config, field by field in the order decoder.config reads them.
func (e *encoder) config(c *Config) {
	e.f64s(c.X0)
	e.f64(c.Sigma0)
	e.f64s(c.Scale)
	e.bool(c.Lower != nil)
	if c.Lower != nil {
		e.f64s(c.Lower)
		e.f64s(c.Upper)
	}
	e.int(c.Lambda)
	e.u64(c.Seed)
	e.bool(c.Restarts == IPOP)
	e.int(c.MaxRestarts)
	e.int(c.MaxEvals)
	e.bool(c.TargetF != nil)
	if c.TargetF != nil {
		e.f64(*c.TargetF)
	}
	e.f64(c.TolX)
	e.f64(c.TolFun)
	e.f64(c.TolConditionCov)
	e.f64(c.TolUpSigma)
	e.bool(c.Noisy)
}

// config reads a resolved config and validates it.
func (d *decoder) config() Config {
	var c Config
	c.X0 = d.f64s("X0", -maxDim)
	n := len(c.X0)
	c.Sigma0 = d.f64()
	c.Scale = d.f64s("Scale", n)
	if d.bool() {
		c.Lower = d.f64s("Lower", n)
		c.Upper = d.f64s("Upper", n)
	}
	c.Lambda = d.int("Lambda", 2, maxLambda)
	c.Seed = d.u64()
	c.Restarts = NoRestarts
	if d.bool() {
		c.Restarts = IPOP
	}
	c.MaxRestarts = d.int("MaxRestarts", 1, 30)
	c.MaxEvals = d.int("MaxEvals", 0, math.MaxInt64)
	if d.bool() {
		t := d.f64()
		c.TargetF = &t
	}
	c.TolX = d.f64()
	c.TolFun = d.f64()
	c.TolConditionCov = d.f64()
	c.TolUpSigma = d.f64()
	c.Noisy = d.bool()
	if d.err != nil {
		return c
	}
	if err := c.Validate(); err != nil {
		d.fail("config: %v", err)
	} else if c.Sigma0 == 0 || c.TolX == 0 || c.TolFun == 0 || c.TolConditionCov == 0 || c.TolUpSigma == 0 {
		d.fail("config: unresolved default")
	}
	return c
}

// encode writes the core state (after the config).
func (c *core) encode(e *encoder) {
	p, _ := c.pcg.MarshalBinary() // never fails
	e.bytes(p)
	e.int(c.lambda)
	e.int(c.restarts)
	e.int(c.gen)
	e.int(c.evals)
	e.int(c.g)
	e.f64(c.bestF)
	e.f64s(c.bestX)
	e.bytes([]byte(c.stop))
	e.bool(c.pending)
	if c.pending {
		e.f64s(c.z)
		e.f64s(c.fit)
		e.bools(c.told)
	}
	e.f64s(c.funHist)
	e.f64s(c.stagBest)
	e.f64s(c.stagMed)
}

// decode reads what encode wrote into a core initialised from cfg. The
// caller decodes the method state next and then calls resample.
func (c *core) decode(d *decoder, cfg Config) {
	c.init(cfg, cfg.Lambda)
	if err := c.pcg.UnmarshalBinary(d.bytes("rng", 64)); err != nil && d.err == nil {
		d.fail("rng: %v", err)
	}
	c.lambda = d.int("lambda", 2, maxLambda)
	c.restarts = d.int("restarts", 0, cfg.MaxRestarts)
	c.gen = d.int("generation", 0, math.MaxInt32)
	c.evals = d.int("evaluations", 0, math.MaxInt64/2)
	c.g = d.int("restart generation", 0, c.gen)
	c.bestF = d.f64()
	c.bestX = d.finiteF64s("best", -c.n)
	c.stop = Reason(d.bytes("stop", 32))
	if d.err != nil {
		return
	}
	switch {
	case c.lambda != cfg.Lambda<<c.restarts:
		d.fail("λ = %d after %d restarts from %d", c.lambda, c.restarts, cfg.Lambda)
	case c.restarts > 0 && cfg.Restarts != IPOP:
		d.fail("restarts without IPOP")
	case math.IsNaN(c.bestF) || (c.bestX == nil) != (c.bestF == math.Inf(1)) || (c.bestX != nil && len(c.bestX) != c.n):
		d.fail("inconsistent best point")
	case !validReason(c.stop):
		d.fail("unknown stop reason %q", c.stop)
	}
	if d.err != nil {
		return
	}
	c.alloc()
	c.pending = d.bool()
	if c.pending {
		copy(c.z, d.finiteF64s("z", c.lambda*c.n))
		copy(c.fit, d.f64s("fitness", c.lambda))
		copy(c.told, d.bools("told", c.lambda))
		for i, t := range c.told {
			if t {
				if math.IsNaN(c.fit[i]) {
					d.fail("fitness %d is NaN", i)
				}
				c.ntold++
			}
		}
		if c.ntold == c.lambda {
			d.fail("complete generation still pending")
		}
	}
	c.funHist = d.f64s("tolfun history", -c.funHistLen())
	c.stagBest = d.f64s("stagnation history", -stagMax)
	c.stagMed = d.f64s("stagnation history", -stagMax)
	if d.err == nil && len(c.stagBest) != len(c.stagMed) {
		d.fail("stagnation histories differ in length")
	}
}

// resample recomputes y and xin of a pending generation after decoding.
func (c *core) resample(m method) {
	if c.pending {
		for k := range c.lambda {
			m.sample(k)
		}
	}
}

// Unmarshal restores an optimizer of either kind from MarshalBinary's bytes.
func Unmarshal(data []byte) (Optimizer, error) {
	kind, err := peekKind(data)
	if err != nil {
		return nil, err
	}
	switch kind {
	case kindCMAES:
		o := new(CMAES)
		if err := o.UnmarshalBinary(data); err != nil {
			return nil, err
		}
		return o, nil
	default:
		o := new(CEM)
		if err := o.UnmarshalBinary(data); err != nil {
			return nil, err
		}
		return o, nil
	}
}
