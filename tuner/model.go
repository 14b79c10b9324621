package tuner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// The model (validation.model). The final race's entrants are points the
// search passed through; the means it averages lie where the drift has
// carried them. Yet every candidate of the stage played on its
// generation's common games, and those games say, through the candidates'
// differences, which way the fitness rises about where the search has
// been. The model fits a quadratic to them (modelfit.go) and races its
// point beside the other entrants: a stage's every game then has a say in
// what it hands on, and the race decides whether the say was right.
//
// What it fits: the candidates of the stage's last half of generations
// (modelShare; no fewer than modelMinWindow, no more than modelMaxWindow
// generations), each with the fitness the optimizer was told, on its
// generation's games, kept in State.Samples. A candidate racing stopped
// early played fewer of those games, and its fitness is on other games
// than its generation's others: it is left out, and the fit takes the
// candidates that played to the end. They are chosen by their first games
// (those that looked worse stopped), which pulls the survivors of a poor
// region up and flattens the fit: the point stays nearer the centre, not
// further out.
//
// In which coordinates: the optimizer's (Ask's values, the tuned
// coordinates of the weights vector) about the centre c, the average of
// the window's means, each divided by the candidates' spread along it
// (their root mean square distance from c), so that a unit is about the
// step the search samples. With more than modelDiagonal coordinates a
// quadratic without cross terms would miss a ridge across them, and one
// with them has too many parameters for the points a stage has; the fit
// then takes the same diagonal form in the principal axes of the
// candidates' covariance (in the coordinates scaled as above), each axis
// scaled to unit spread: those are the directions the search itself has
// stretched its samples along.
//
// Its point: per fitted coordinate, the vertex of a significant maximum
// within modelReach spread units of c, a short step (modelSlope) along a
// significant slope, else c (quadFit.point). Back in the weights'
// coordinates, held coordinates keep their value and the point is clamped
// to the coordinates' bounds. A fit that refuses (too few points, an
// ill-conditioned system) adds no entrant; the race says why (RecordRace's
// model).

const (
	// modelShare is the share of a stage's generations whose candidates
	// the model fits, modelMinWindow and modelMaxWindow its bounds in
	// generations.
	modelShare     = 0.5
	modelMinWindow = 10
	modelMaxWindow = 256
	// modelDiagonal is the most coordinates fitted as they are; above,
	// the fit is in the candidates' principal axes.
	modelDiagonal = 8
	// modelFlat is the smallest principal variance, relative to the
	// largest, the principal axes may have: a flatter axis is a direction
	// the candidates do not explore.
	modelFlat = 1e-10
)

// A Sample is one generation's candidates as the model fits them.
type Sample struct {
	Generation int `json:"generation"` // completed generations after it
	// Mean is the distribution mean after the generation, in the
	// optimizer's coordinates (the stage's tuned coordinates).
	Mean []float64 `json:"mean"`
	// X are the candidates that played every game of the generation, in
	// the optimizer's coordinates, and Fitness their fitness on them.
	X       [][]float64 `json:"x"`
	Fitness []float64   `json:"fitness"`
}

// modelWindow is how many of a stage's latest generations the model fits
// after played generations of the stage.
func modelWindow(played int) int {
	k := max(modelMinWindow, int(math.Round(modelShare*float64(played))))
	return min(k, modelMaxWindow, played)
}

// keepSample keeps generation done's candidates g (full vectors) that
// played to the end (full), with their fitness fit, and the mean after
// it, and drops the samples the window has left behind: under
// validation.model only, so that other runs' states are what they were.
// The window's first generation never moves back (done minus the window
// grows with done), so a sample dropped is never needed again.
func (t *Tuner) keepSample(done int, g *generation, fit []float64, full []bool) {
	if !t.cfg.Validation.Model {
		return
	}
	s := Sample{Generation: done, Mean: slices.Clone(t.opt.Mean())}
	for c, w := range g.weights {
		if !full[c] {
			continue
		}
		x := make([]float64, len(t.free))
		for k, i := range t.free {
			x[k] = w[i]
		}
		s.X, s.Fitness = append(s.X, x), append(s.Fitness, fit[c])
	}
	t.state.Samples = append(t.state.Samples, s)
	from := done - modelWindow(done-t.state.StageGeneration)
	t.state.Samples = slices.DeleteFunc(t.state.Samples, func(s Sample) bool { return s.Generation <= from })
}

// modelAt returns the model's point after done completed generations (a
// full vector) and what its fit was; a nil point where the model has
// none (the info says why), or where validation.model is off (nil info).
func (t *Tuner) modelAt(done int) ([]float64, *RecordModel) {
	if !t.cfg.Validation.Model {
		return nil, nil
	}
	from := done - modelWindow(done-t.state.StageGeneration)
	var ss []Sample
	for _, s := range t.state.Samples {
		if s.Generation > from && s.Generation <= done {
			ss = append(ss, s)
		}
	}
	info := &RecordModel{}
	if len(ss) > 0 {
		info.First = ss[0].Generation
	}
	x, err := modelPoint(ss, len(t.free), info)
	if err != nil {
		info.None = strings.TrimPrefix(err.Error(), errModelFit.Error()+": ")
		return nil, info
	}
	coords, err := Coordinates(t.cfg, t.search)
	if err != nil {
		info.None = err.Error()
		return nil, info
	}
	for k, i := range t.free {
		c := coords[i]
		x[k] = math.Max(c.Lower, math.Min(c.Upper, x[k]))
		x[k] = math.Max(-c.Limit, math.Min(c.Limit, x[k]))
	}
	return t.vector(x), info
}

// modelPoint returns the model's point of the samples ss (d tuned
// coordinates each) in the optimizer's coordinates, unclamped, and fills
// info with the fit; an error wrapping errModelFit where it has none.
func modelPoint(ss []Sample, d int, info *RecordModel) ([]float64, error) {
	if len(ss) == 0 {
		return nil, fmt.Errorf("%w: no generation's candidates kept", errModelFit)
	}
	f, err := newModelFrame(ss, d)
	if err != nil {
		return nil, err
	}
	info.Basis = f.basis()
	groups := make([]modelGroup, len(ss))
	for g, s := range ss {
		groups[g] = modelGroup{F: s.Fitness}
		for _, x := range s.X {
			groups[g].U = append(groups[g].U, f.to(x))
		}
	}
	q, err := fitQuadratic(groups, d)
	if err != nil {
		return nil, err
	}
	u, curved, sloped := q.point()
	info.Points, info.Generations, info.Curved, info.Sloped = q.Points, q.Groups, curved, sloped
	return f.from(u), nil
}

// A modelFrame is the fit's coordinates: u = Λ^{-1/2} Qᵀ ((x − c) / s),
// with c the centre, s the spread of each coordinate about it, and, in
// the principal axes, Q the axes and Λ their variances (Q and Λ the
// identity otherwise).
type modelFrame struct {
	c, s []float64
	q    *mat.Dense // nil: the coordinates as they are
	root []float64  // √Λ
}

// newModelFrame returns the frame of the samples ss.
func newModelFrame(ss []Sample, d int) (*modelFrame, error) {
	f := &modelFrame{c: make([]float64, d), s: make([]float64, d)}
	for _, s := range ss {
		for j, v := range s.Mean {
			f.c[j] += v / float64(len(ss))
		}
	}
	n := 0
	for _, s := range ss {
		n += len(s.X)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no candidate played to the end", errModelFit)
	}
	for _, s := range ss {
		for _, x := range s.X {
			for j, v := range x {
				f.s[j] += (v - f.c[j]) * (v - f.c[j]) / float64(n)
			}
		}
	}
	for j, v := range f.s {
		if f.s[j] = math.Sqrt(v); !(f.s[j] > 0) || math.IsInf(f.s[j], 0) {
			return nil, fmt.Errorf("%w: the candidates do not spread along coordinate %d", errModelFit, j)
		}
	}
	if d <= modelDiagonal {
		return f, nil
	}
	cov := mat.NewSymDense(d, nil)
	z := make([]float64, d)
	for _, s := range ss {
		for _, x := range s.X {
			for j, v := range x {
				z[j] = (v - f.c[j]) / f.s[j]
			}
			cov.SymRankOne(cov, 1/float64(n), mat.NewVecDense(d, z))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(cov, true) {
		return nil, fmt.Errorf("%w: the candidates' covariance has no eigenvectors", errModelFit)
	}
	vals := es.Values(nil)
	top := vals[d-1]
	f.root = make([]float64, d)
	for k, v := range vals {
		if !(v > modelFlat*top) {
			return nil, fmt.Errorf("%w: the candidates' covariance is flat along an axis (variance %.3g of %.3g)", errModelFit, v, top)
		}
		f.root[k] = math.Sqrt(v)
	}
	f.q = mat.NewDense(d, d, nil)
	es.VectorsTo(f.q)
	return f, nil
}

// basis names the frame's axes as RecordModel does.
func (f *modelFrame) basis() string {
	if f.q == nil {
		return "coordinates"
	}
	return "principal axes"
}

// to returns the fit's coordinates of x.
func (f *modelFrame) to(x []float64) []float64 {
	z := make([]float64, len(x))
	for j, v := range x {
		z[j] = (v - f.c[j]) / f.s[j]
	}
	if f.q == nil {
		return z
	}
	u := make([]float64, len(x))
	for k := range u {
		for j, v := range z {
			u[k] += f.q.At(j, k) * v
		}
		u[k] /= f.root[k]
	}
	return u
}

// from returns the point whose fit's coordinates are u.
func (f *modelFrame) from(u []float64) []float64 {
	z := slices.Clone(u)
	if f.q != nil {
		for j := range z {
			z[j] = 0
			for k, v := range u {
				z[j] += f.q.At(j, k) * f.root[k] * v
			}
		}
	}
	x := make([]float64, len(z))
	for j, v := range z {
		x[j] = f.c[j] + f.s[j]*v
	}
	return x
}
