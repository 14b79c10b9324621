package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart geometry, in points.
const (
	defaultWidth  = 720
	defaultHeight = 280
	// legendStrip is the least width kept for the legend, so that charts
	// of equal width have plot areas of equal width, one above the other.
	legendStrip = 160
)

// palette is colour-blind safe (Okabe–Ito) with a grey for context.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
	{0x88, 0x88, 0x88, 0xff}, // grey
	{0x00, 0x00, 0x00, 0xff}, // black
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// sans is the face every text of a chart uses; the page's style sheet maps
// it to the reader's sans-serif font (Liberation Sans has Arial's metrics).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// svg draws c and returns the <svg> element, ready to inline in HTML.
func (c *chart) svg() ([]byte, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.Title.Padding = 6
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 10)
	}
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.Add(plotter.NewGrid())

	legend := plot.NewLegend()
	legend.TextStyle.Font = font.From(sans, 10)
	legend.Top, legend.Left = true, true
	legend.ThumbnailWidth = 22
	legend.Padding = 3

	xlo, xhi := c.xRange()
	if math.IsInf(xlo, 0) {
		xlo, xhi = 0, 1
	}
	// Room either side of the first and last generation, so that their
	// markers and error bars are not cut by the frame, and a single
	// generation sits mid-chart.
	xpad := max(0.02*(xhi-xlo), 0.5)
	xlo, xhi = xlo-xpad, xhi+xpad
	ylo, yhi, ok := c.yRange()
	if !ok {
		ylo, yhi = 0, 1
		if c.LogY {
			ylo, yhi = 0.1, 1
		}
	}
	if c.LogY {
		ylo, yhi = padLog(ylo, yhi)
	} else {
		ylo, yhi = pad(ylo, yhi)
	}

	for _, s := range c.Series {
		if err := add(p, &legend, s, xlo, xhi, ylo, yhi); err != nil {
			return nil, fmt.Errorf("report: chart %s, series %q: %w", c.ID, s.Name, err)
		}
	}
	p.X.Min, p.X.Max = xlo, xhi
	p.X.Tick.Marker = generationTicks{}
	p.Y.Min, p.Y.Max = ylo, yhi
	p.Y.Tick.Marker = plainTicks{}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}

	h := c.Height
	if h == 0 {
		h = defaultHeight
	}
	w := c.Width
	if w == 0 {
		w = defaultWidth
	}
	canvas := vgsvg.New(vg.Length(w), vg.Length(h))
	dc := draw.New(canvas)
	// The legend gets a strip of its own right of the plot, so it never
	// hides data however the curves run.
	lw := max(legendWidth(&legend), legendStrip)
	p.Draw(draw.Crop(dc, 0, -lw-8, 0, 0))
	titleH := p.Title.TextStyle.Height(c.Title) + p.Title.Padding*2
	legend.Draw(draw.Crop(dc, vg.Length(w)-lw, 0, 0, -titleH))

	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	// Inline SVG takes no XML prolog.
	if i := bytes.Index(out, []byte("<svg")); i >= 0 {
		out = out[i:]
	}
	return out, nil
}

func legendWidth(l *plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	return r.Max.X - r.Min.X + 4
}

// add draws one series on p and enters it in the legend.
func add(p *plot.Plot, legend *plot.Legend, s series, xlo, xhi, ylo, yhi float64) error {
	col := palette[s.Color%len(palette)]
	style := func(l *plotter.Line) {
		l.LineStyle.Color = col
		l.LineStyle.Width = vg.Points(1.5)
		if s.Band {
			l.LineStyle.Color = color.NRGBA{col.R, col.G, col.B, 0x50}
			l.LineStyle.Width = vg.Points(5)
		}
		if s.Faint {
			l.LineStyle.Width = vg.Points(1)
			l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		}
	}
	switch s.Kind {
	case line:
		if len(s.X) == 0 {
			return nil
		}
		l, err := plotter.NewLine(xys(s.X, s.Y))
		if err != nil {
			return err
		}
		style(l)
		p.Add(l)
		if len(s.X) == 1 {
			// A single point draws no line: mark it so it shows.
			sc, err := plotter.NewScatter(xys(s.X, s.Y))
			if err != nil {
				return err
			}
			sc.GlyphStyle.Color, sc.GlyphStyle.Shape = col, draw.CircleGlyph{}
			p.Add(sc)
		}
		legend.Add(s.Name, l)
	case points:
		sc, err := plotter.NewScatter(xys(s.X, s.Y))
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = col
		sc.GlyphStyle.Shape = glyph(s.Shape)
		sc.GlyphStyle.Radius = vg.Points(3)
		if s.Shape != disc {
			sc.GlyphStyle.Radius = vg.Points(3.5)
		}
		if len(s.X) > 50 {
			// Hundreds of validations: smaller marks keep the trend readable.
			sc.GlyphStyle.Radius = vg.Points(1.5)
		}
		if err := addSpans(p, s, col); err != nil {
			return err
		}
		if s.Err != nil {
			eb, err := plotter.NewYErrorBars(errXYs{xys(s.X, s.Y), plotter.YErrors(pairs(s.Err))})
			if err != nil {
				return err
			}
			eb.LineStyle.Color = col
			eb.LineStyle.Width = vg.Points(1.2)
			eb.CapWidth = vg.Points(6)
			p.Add(eb)
		}
		p.Add(sc)
		legend.Add(s.Name, sc)
	case reference:
		l, err := plotter.NewLine(plotter.XYs{{X: xlo, Y: s.Y[0]}, {X: xhi, Y: s.Y[0]}})
		if err != nil {
			return err
		}
		l.LineStyle.Color = col
		l.LineStyle.Width = vg.Points(1.5)
		l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(l)
		legend.Add(s.Name, l)
	case markers:
		var first *plotter.Line
		for _, x := range s.X {
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: ylo}, {X: x, Y: yhi}})
			if err != nil {
				return err
			}
			style(l)
			p.Add(l)
			if first == nil {
				first = l
			}
		}
		if first != nil {
			legend.Add(s.Name, first)
		}
	}
	return nil
}

// glyph returns the marker of a shape.
func glyph(sh shape) draw.GlyphDrawer {
	switch sh {
	case ring:
		return ringGlyph{}
	case cross:
		return crossGlyph{}
	}
	return draw.CircleGlyph{}
}

// glyphLine is the stroke of the open glyphs: gonum's own 0.5 points
// vanish at the size a browser shows a chart.
const glyphLine = 1.3

// ringGlyph is draw.RingGlyph with a stroke that shows.
type ringGlyph struct{}

func (ringGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(glyphLine)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// crossGlyph is draw.CrossGlyph with a stroke that shows.
type crossGlyph struct{}

func (crossGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(glyphLine)})
	r := sty.Radius * 0.7071
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	c.Stroke(p)
	p = p[:0]
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	c.Stroke(p)
}

// addSpans draws the horizontal bars of a points series' XErr, for the
// points that have one (an average spans the generations it averages).
func addSpans(p *plot.Plot, s series, col color.Color) error {
	var pts plotter.XYs
	var half []float64
	for i, e := range s.XErr {
		if e > 0 {
			pts, half = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i]}), append(half, e)
		}
	}
	if pts == nil {
		return nil
	}
	eb, err := plotter.NewXErrorBars(errXXYs{pts, plotter.XErrors(pairs(half))})
	if err != nil {
		return err
	}
	eb.LineStyle.Color = col
	eb.LineStyle.Width = vg.Points(1.2)
	eb.CapWidth = vg.Points(4)
	p.Add(eb)
	return nil
}

type errXXYs struct {
	plotter.XYs
	plotter.XErrors
}

func xys(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts
}

func pairs(e []float64) []struct{ Low, High float64 } {
	out := make([]struct{ Low, High float64 }, len(e))
	for i, x := range e {
		out[i].Low, out[i].High = x, x
	}
	return out
}

type errXYs struct {
	plotter.XYs
	plotter.YErrors
}

// pad widens [lo, hi] by 5% on each side so that no curve sits on a frame
// line; a constant series gets a range of its own magnitude's 5% (or ±1
// around 0) instead of an empty one.
func pad(lo, hi float64) (float64, float64) {
	d := hi - lo
	if d <= 0 {
		d = max(math.Abs(lo)*0.1, 1)
		return lo - d/2, hi + d/2
	}
	return lo - 0.05*d, hi + 0.05*d
}

// padLog widens a positive range by a factor on each side, and to at
// least a factor of 2.5 in all, so that a log axis always holds a labelled
// tick (see logTicks) and a constant series sits mid-chart.
func padLog(lo, hi float64) (float64, float64) {
	lo, hi = lo/1.15, hi*1.15
	if r := hi / lo; r < 2.5 {
		f := math.Sqrt(2.5 / r)
		lo, hi = lo/f, hi*f
	}
	return lo, hi
}

// plainTicks are plot's default ticks labelled without padding zeros
// ("125000", not "125000.00").
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := (plot.DefaultTicks{}).Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = tickLabel(ts[i].Value)
		}
	}
	return ts
}

// generationTicks labels whole generations at a round step (1, 2 or 5
// times a power of ten) giving at most about 8 labels.
type generationTicks struct{}

func (generationTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep((hi - lo) / 7)
	if step < 1 {
		step = 1
	}
	var out []plot.Tick
	for g := math.Ceil(lo/step) * step; g <= hi; g += step {
		if g == 0 {
			g = 0 // not -0, the ceiling of -0.5, labelled "-0"
		}
		out = append(out, plot.Tick{Value: g, Label: strconv.FormatFloat(g, 'f', 0, 64)})
	}
	return out
}

// niceStep returns the smallest of 1, 2, 5 times a power of ten that is at
// least x (x > 0).
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// logTicks marks 1 to 9 times each power of ten in range and labels 1, 2
// and 5 times them when the range spans at most two decades (σ usually
// moves within one, where decade labels alone would leave nothing to read),
// only the powers of ten otherwise.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	dense := hi/lo <= 100
	var out []plot.Tick
	for k := math.Floor(math.Log10(lo)); k <= math.Ceil(math.Log10(hi)); k++ {
		p := math.Pow(10, k)
		for m := 1.0; m <= 9; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || dense && (m == 2 || m == 5) {
				t.Label = tickLabel(v)
			}
			out = append(out, t)
		}
	}
	// Within a narrow range (σ between 0.21 and 0.49, say) 1, 2 and 5 may
	// not occur: then every tick gets its label.
	if countLabels(out) < 2 {
		for i := range out {
			out[i].Label = tickLabel(out[i].Value)
		}
	}
	return out
}

// tickLabel prints a tick value to 6 significant digits, without the
// float noise of m × 10^k and without an exponent below a billion.
func tickLabel(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if a := math.Abs(r); a >= 1e-4 && a < 1e9 || r == 0 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

func countLabels(ts []plot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}
