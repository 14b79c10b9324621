package tunebench

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// The chart of a table's curves is SVG written by hand: a few polylines
// need no plotting library (package report draws its charts with gonum's,
// which this package need not carry), and text written with fixed
// decimals is the same bytes on every machine, so that the docs' charts
// are checked like their tables.

// Chart geometry, in pixels.
const (
	chartWidth  = 720
	plotLeft    = 60
	plotRight   = 684
	plotTop     = 36
	plotBottom  = 276
	legendTop   = 318
	legendLine  = 17
	chartBottom = 12
)

// palette is package report's: colour-blind safe (Okabe–Ito), a colour a
// row in order.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#888888", "#000000"}

// svgChart draws curves (a line for each row's median, a dashed one for
// its worst run) against games played, with the target, as an SVG file.
func svgChart(title string, target float64, cs []curve) []byte {
	xhi := int64(0)
	ylo, yhi := target, target
	for _, c := range cs {
		xhi = max(xhi, c.end)
		for i := range c.median {
			ylo, yhi = min(ylo, c.worst[i]), max(yhi, c.median[i])
		}
	}
	xstep := niceStep(float64(xhi), 6)
	xmax := math.Ceil(float64(max(xhi, 1))/xstep) * xstep
	pad := max((yhi-ylo)*0.05, 0.01)
	ystep := niceStep(yhi-ylo+2*pad, 6)
	ymin, ymax := math.Floor((ylo-pad)/ystep)*ystep, math.Ceil((yhi+pad)/ystep)*ystep
	x := func(games float64) float64 { return plotLeft + (plotRight-plotLeft)*games/xmax }
	y := func(ratio float64) float64 { return plotBottom - (plotBottom-plotTop)*(ratio-ymin)/(ymax-ymin) }

	height := legendTop + legendLine*(len(cs)+1) + chartBottom
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, height, chartWidth, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", chartWidth, height)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s</text>`+"\n", plotLeft, html.EscapeString(title))
	for k := 0.0; ymin+k*ystep <= ymax+ystep/2; k++ {
		v := ymin + k*ystep
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#dddddd"/>`+"\n", plotLeft, f1(y(v)), plotRight, f1(y(v)))
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end">%s</text>`+"\n", plotLeft-6, f1(y(v)+4), strconv.FormatFloat(v, 'f', decimals(ystep), 64))
	}
	for k := 0.0; k*xstep <= xmax+xstep/2; k++ {
		v := k * xstep
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#dddddd"/>`+"\n", f1(x(v)), plotTop, f1(x(v)), plotBottom)
		fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", f1(x(v)), plotBottom+16, gamesTick(v, xmax))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444444"/>`+"\n", plotLeft, plotTop, plotRight-plotLeft, plotBottom-plotTop)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">games played (held-out games not counted)</text>`+"\n", (plotLeft+plotRight)/2, plotBottom+34)
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">held-out ratio to the start</text>`+"\n", (plotTop+plotBottom)/2)
	fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#666666" stroke-dasharray="2 3"/>`+"\n", plotLeft, f1(y(target)), plotRight, f1(y(target)))
	// At the left, where the curves have not begun: their first point is
	// a grid line in.
	fmt.Fprintf(&b, `<text x="%d" y="%s" fill="#666666">target ×%.2f</text>`+"\n", plotLeft+4, f1(y(target)-4), target)
	for i, c := range cs {
		col := palette[i%len(palette)]
		ly := legendTop + legendLine*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", plotLeft, ly-4, plotLeft+24, ly-4, col)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", plotLeft+32, ly, html.EscapeString(c.name))
		if len(c.median) == 0 {
			continue // a row that failed at its first run seed
		}
		xs := make([]float64, 0, len(c.median))
		for _, l := range c.lines {
			xs = append(xs, x(float64(l)))
		}
		if len(c.median) > len(c.lines) {
			xs = append(xs, x(float64(c.end)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.2" stroke-dasharray="5 3" points="%s"/>`+"\n", col, points(xs, c.worst, y))
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, points(xs, c.median, y))
		for k := range xs {
			if len(xs) > 30 {
				break // marks would hide the line
			}
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", f1(xs[k]), f1(y(c.median[k])), col)
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#444444" font-size="11">solid: the median run, dashed: the worst, at each point and at the runs' end; dotted: the target</text>`+"\n",
		plotLeft, legendTop+legendLine*len(cs))
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// points writes a polyline's points.
func points(xs, ys []float64, y func(float64) float64) string {
	var parts []string
	for i := range xs {
		parts = append(parts, f1(xs[i])+","+f1(y(ys[i])))
	}
	return strings.Join(parts, " ")
}

// f1 writes a coordinate with one decimal: the same bytes everywhere.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// niceStep is a step of 1, 2, 2.5 or 5 times a power of ten that cuts span
// into at most n parts.
func niceStep(span float64, n int) float64 {
	if !(span > 0) {
		return 1
	}
	raw := span / float64(n)
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*pow >= raw {
			return m * pow
		}
	}
	return 10 * pow
}

// decimals is how many decimals the ticks of step need.
func decimals(step float64) int {
	for d := 0; d < 6; d++ {
		if math.Abs(step*math.Pow(10, float64(d))-math.Round(step*math.Pow(10, float64(d)))) < 1e-9 {
			return d
		}
	}
	return 6
}

// gamesTick writes a number of games as an axis up to xmax shows it:
// 2,500 up to 10,000 games, 20k beyond.
func gamesTick(v, xmax float64) string {
	n := int64(math.Round(v))
	if xmax > 10000 && n%1000 == 0 {
		return strconv.FormatInt(n/1000, 10) + "k"
	}
	return thousands(n)
}
