package tuner

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The model's fit, apart from where its points come from (model.go): a
// quadratic without cross terms in coordinates u, with an effect of its
// own for each generation,
//
//	f_{g,i} = a_g + Σ_j b_j u_{g,i,j} + ½ Σ_j h_j u_{g,i,j}²,
//
// fitted by least squares. A generation's candidates play the same games,
// so their fitness shares that generation's luck: a_g takes it, whatever
// it is, and only the differences within a generation inform b and h
// (common random numbers sharpen exactly those). Removing each
// generation's mean from the fitness and from every regressor removes a_g
// exactly (Frisch–Waugh–Lovell); TestModelFitTwin checks the fit against
// the full design with a column per generation.
//
// The normal equations are solved with a Cholesky factorisation, after
// scaling each column to unit length: slow and plain, and the matrix is
// at most 2d × 2d. The fit refuses (errModelFit) rather than return
// slopes and curvatures it cannot back: with fewer than modelPerParameter
// points for each of its parameters (the a_g counted), or a system whose
// condition exceeds modelCond.

const (
	// modelPerParameter is the fewest points a fit takes per parameter.
	modelPerParameter = 3
	// modelCond is the largest condition number of the scaled normal
	// equations a fit solves (that of the design's columns squared).
	modelCond = 1e10
)

// errModelFit is why the model has no point.
var errModelFit = errors.New("tuner: no model")

// A modelGroup is one generation's points: coordinates U[i] and fitness
// F[i], on the generation's common games.
type modelGroup struct {
	U [][]float64
	F []float64
}

// A quadFit is a fitted quadratic: slopes B and curvatures H, with their
// standard errors.
type quadFit struct {
	B, H     []float64
	SEB, SEH []float64
	// Points and Groups are the points and generations fitted (those of
	// a generation of one point say nothing and are left out); DOF is the
	// residual degrees of freedom, Points − Groups − 2d.
	Points, Groups, DOF int
}

// fitQuadratic fits the model to groups, each point of dimension d.
func fitQuadratic(groups []modelGroup, d int) (*quadFit, error) {
	var use []modelGroup
	n := 0
	for _, g := range groups {
		if len(g.F) >= 2 {
			use = append(use, g)
			n += len(g.F)
		}
	}
	p := len(use) + 2*d
	if n < modelPerParameter*p {
		return nil, fmt.Errorf("%w: %d points in %d generations for %d parameters (%d a parameter needed)", errModelFit, n, len(use), p, modelPerParameter)
	}
	// z holds the regressors demeaned within their generation, y the
	// fitness likewise.
	k := 2 * d
	z := mat.NewDense(n, k, nil)
	y := mat.NewVecDense(n, nil)
	row := 0
	for _, g := range use {
		m := float64(len(g.F))
		mean := make([]float64, k)
		var fm float64
		for i, u := range g.U {
			for j, v := range u {
				mean[j] += v / m
				mean[d+j] += v * v / 2 / m
			}
			fm += g.F[i] / m
		}
		for i, u := range g.U {
			for j, v := range u {
				z.Set(row, j, v-mean[j])
				z.Set(row, d+j, v*v/2-mean[d+j])
			}
			y.SetVec(row, g.F[i]-fm)
			row++
		}
	}
	norm := make([]float64, k)
	for j := range k {
		norm[j] = mat.Norm(z.ColView(j), 2)
		if !(norm[j] > 0) || math.IsInf(norm[j], 0) {
			return nil, fmt.Errorf("%w: regressor %d has no spread within generations", errModelFit, j)
		}
	}
	zs := mat.NewDense(n, k, nil)
	zs.Apply(func(_, j int, v float64) float64 { return v / norm[j] }, z)
	var a mat.SymDense
	a.SymOuterK(1, zs.T())
	var ch mat.Cholesky
	if !ch.Factorize(&a) {
		return nil, fmt.Errorf("%w: the normal equations are singular", errModelFit)
	}
	if c := ch.Cond(); !(c <= modelCond) {
		return nil, fmt.Errorf("%w: the normal equations' condition is %.3g (at most %.0g)", errModelFit, c, modelCond)
	}
	var zty, beta mat.VecDense
	zty.MulVec(zs.T(), y)
	if err := ch.SolveVecTo(&beta, &zty); err != nil {
		return nil, fmt.Errorf("%w: %w", errModelFit, err)
	}
	var res mat.VecDense
	res.MulVec(zs, &beta)
	res.SubVec(y, &res)
	dof := n - len(use) - k
	s2 := mat.Dot(&res, &res) / float64(dof)
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("%w: %w", errModelFit, err)
	}
	q := &quadFit{B: make([]float64, d), H: make([]float64, d), SEB: make([]float64, d), SEH: make([]float64, d), Points: n, Groups: len(use), DOF: dof}
	for j := range k {
		coef := beta.AtVec(j) / norm[j]
		se := math.Sqrt(s2*inv.At(j, j)) / norm[j]
		if j < d {
			q.B[j], q.SEB[j] = coef, se
		} else {
			q.H[j-d], q.SEH[j-d] = coef, se
		}
	}
	return q, nil
}

const (
	// modelZ is how many standard errors make a curvature or a slope
	// significant (about 2.5% one-sided each, at the residual degrees of
	// freedom a fit has).
	modelZ = 2
	// modelReach is how far, in spread units, the model's point goes to
	// a maximum's vertex; modelSlope how far along a slope without one.
	// The candidates sampled span about ±1 spread unit: a vertex a little
	// beyond that is where the fit still has points, a slope is not
	// followed out of the region that measured it.
	modelReach = 1.5
	modelSlope = 0.5
)

// point returns the fit's point, coordinate by coordinate, in units of the
// fit's coordinates from its centre: where the curvature is negative and
// significant, the vertex −b/h within ±modelReach; elsewhere, where the
// slope is significant, modelSlope in its direction (no further than the
// vertex of a negative curvature that is not significant); else the
// centre. It returns how many coordinates took a vertex and a slope.
func (q *quadFit) point() (p []float64, curved, sloped int) {
	p = make([]float64, len(q.B))
	for j, b := range q.B {
		h := q.H[j]
		switch {
		case h < 0 && -h > modelZ*q.SEH[j]:
			p[j] = math.Max(-modelReach, math.Min(modelReach, -b/h))
			curved++
		case math.Abs(b) > modelZ*q.SEB[j]:
			step := modelSlope
			if h < 0 {
				step = math.Min(step, math.Abs(b/h))
			}
			p[j] = math.Copysign(step, b)
			sloped++
		}
	}
	return p, curved, sloped
}
