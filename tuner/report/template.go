package report

// pageHTML is the report page. Everything it needs is inline: the style
// sheet here, the charts as SVG; no script, no link, no font download.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>evotune run {{.Name}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; color: #222; margin: 1.5em auto; max-width: 1180px; padding: 0 1em; line-height: 1.4; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.status { font-size: 1.05em; margin-top: 0; }
.status.done { color: #006e4f; }
.status.open { color: #9a5b00; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.notice { background: #fff6e0; border-left: 4px solid #e69f00; padding: 0.4em 0.8em; margin: 0.4em 0; }
figure { margin: 1em 0 1.5em 0; }
figure svg { max-width: 100%; height: auto; display: block; }
/* The charts name Liberation Sans; any Arial-metric sans-serif fits the layout. */
figure svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
figcaption { color: #555; font-size: 0.9em; max-width: 60em; }
.below { font-size: 0.9em; }
.below p { max-width: 60em; }
tr.first td { border-top: 2px solid #999; }
summary { cursor: pointer; margin: 0.4em 0; }
.side { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.side > div:first-child { flex: 0 1 680px; min-width: 0; }
td code { white-space: pre; }
pre, code { font-family: "Liberation Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f7f7f7; padding: 0.6em 0.8em; overflow-x: auto; }
nav a { margin-right: 0.8em; }
table.story td { max-width: 60em; }
</style>
</head>
<body>
<h1>evotune run {{.Name}}</h1>
<p class="status {{if .Finished}}done{{else}}open{{end}}">{{.Status}}</p>
<nav>{{range .Charts}}<a href="#{{.ID}}">{{.Title}}</a> {{end}}<a href="#weights-recommended">Recommended {{.Word}}s</a> <a href="#commands">Commands</a> <a href="#config">Config</a></nav>
{{range .Notices}}<p class="notice">{{.}}</p>
{{end}}
<h2 id="summary">Run</h2>
<table>
{{range .Facts}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
<h2 id="comparison">Start vs tuned, on the same validation games</h2>
{{with .Comparison}}<table>
<tr><th></th><th>generation</th><th>{{.Metric}}</th><th>mean score ± 95% CI</th><th>median score</th><th>games</th></tr>
{{with .Start}}<tr><th>{{.Label}}</th><td class="n">{{.Generation}}</td><td class="n">{{.Fitness}}</td><td class="n">{{.Mean}}</td><td class="n">{{.Median}}</td><td class="n">{{.Games}}</td></tr>{{end}}
{{with .End}}<tr><th>{{.Label}}</th><td class="n">{{.Generation}}</td><td class="n">{{.Fitness}}</td><td class="n">{{.Mean}}</td><td class="n">{{.Median}}</td><td class="n">{{.Games}}</td></tr>{{end}}
{{if .Diff}}<tr><th>change</th><td></td><td class="n">{{.Diff}}</td><td></td><td></td><td></td></tr>{{end}}
</table>
<p>{{.Reach}}</p>
{{else}}<p>The starting weights have not been validated yet.</p>
{{end}}
{{if .Charts}}<h2 id="charts">Charts</h2>
{{range .Charts}}<figure id="{{.ID}}">{{if .Side}}<div class="side"><div>{{.SVG}}</div>
<table>
<tr><th>{{$.Word}}</th><th>start</th><th>latest mean</th><th>{{$.ChangeHead}}</th></tr>
{{range .Side}}<tr><th>{{.Name}}</th><td class="n">{{.Start}}</td><td class="n">{{.Latest}}</td><td class="n">{{.Change}}</td></tr>
{{end}}</table></div>{{else}}{{.SVG}}{{end}}
<figcaption>{{.Caption}}</figcaption>
{{with .Below}}<div class="below">{{if .Intro}}<p>{{.Intro}}</p>
{{end}}{{if .Rows}}{{if .Fold}}<details><summary>{{.Summary}}</summary>
{{end}}<table>
<tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{$num := .Num}}{{range .Rows}}<tr{{if .First}} class="first"{{end}}>{{range $i, $c := .Cells}}<td{{if index $num $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>{{if .Fold}}</details>{{end}}
{{end}}{{if .After}}<p>{{.After}}</p>
{{end}}</div>
{{end}}</figure>
{{end}}{{else}}<h2>Charts</h2>
<p>No generation has completed yet: the charts appear after the first one.</p>
{{end}}
<h2 id="weights-recommended">Recommended {{.Word}}s</h2>
<p>{{.Recommended.What}}</p>
{{with .Recommended.Story}}<table class="story">
{{range .}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
{{end}}{{with .Recommended.After}}<p>{{.}}</p>
{{end}}{{if .Recommended.Rows}}<table>
<tr><th>{{.Word}}</th><th>start</th><th>recommended</th><th>{{.ChangeHead}}</th></tr>
{{range .Recommended.Rows}}<tr><th>{{.Name}}</th><td class="n">{{.Start}}</td><td class="n">{{.Latest}}</td><td class="n">{{.Change}}</td></tr>
{{end}}</table>{{end}}
<h2 id="commands">Commands</h2>
<table>
{{range .Commands}}<tr><td>{{index . 0}}</td><td><code>{{index . 1}}</code></td></tr>
{{end}}</table>
<h2 id="config">Config, as the run ran it</h2>
<p>Resolved: every default filled in, as the newest checkpoint holds it. A comment marks a value a resume changed from the run directory's config.yaml, and what a search makes of a value.</p>
<pre>{{.Config}}</pre>
</body>
</html>
`
