// Command render draws deploy/grafana/avaedge.json's panels as an HTML page,
// for the screenshot in docs/operations.md on a machine without Grafana (none
// of the package registries this project reaches ships it). It is not Grafana: it
// loads a series of /metrics scrapes (files named <unix ms>-<instance>.prom,
// as test/e2e's usage test saves them with AVAEDGE_E2E_SCRAPE=DIR) into a
// Prometheus TSDB, evaluates every panel's queries with the Prometheus
// query engine itself ($__rate_interval as 20s, $instance as every
// replica), and draws time series, stats and state timelines on the
// dashboard's grid in Grafana's dark colours. Chromium, headless, then
// takes the picture:
//
//	go run . -scrapes DIR -out /tmp/dash.html
//	chromium --headless --no-sandbox --window-size=1600,1900 --screenshot=dashboard.png file:///tmp/dash.html
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
)

type target struct {
	Expr         string `json:"expr"`
	LegendFormat string `json:"legendFormat"`
}

type mapping struct {
	Options map[string]struct {
		Text  string `json:"text"`
		Color string `json:"color"`
	} `json:"options"`
}

type panel struct {
	Type        string                       `json:"type"`
	Title       string                       `json:"title"`
	GridPos     struct{ X, Y, W, H float64 } `json:"gridPos"`
	Targets     []target                     `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit     string    `json:"unit"`
			Mappings []mapping `json:"mappings"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

// dashboard is the dashboard JSON's title and panels.
type dashboard struct {
	Title  string  `json:"title"`
	Panels []panel `json:"panels"`
}

func main() {
	dash := flag.String("dashboard", "../avaedge.json", "the dashboard JSON")
	scrapes := flag.String("scrapes", "", "directory of <unix ms>-<instance>.prom scrapes")
	out := flag.String("out", "dashboard.html", "the HTML page to write")
	flag.Parse()
	var d dashboard
	b, err := os.ReadFile(*dash)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "render-tsdb-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := tsdb.Open(dir, nil, nil, tsdb.DefaultOptions(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	start, end, err := load(db, *scrapes)
	if err != nil {
		log.Fatal(err)
	}
	step := 2 * time.Second // the scrapes' interval
	end = end.Add(step)     // the last scrape is within the lookback of the last point
	r := renderer{db: db, start: start, end: end, step: step,
		eng: promql.NewEngine(promql.EngineOpts{MaxSamples: 50_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})}
	if err := os.WriteFile(*out, []byte(r.page(d)), 0o644); err != nil {
		log.Fatal(err)
	}
}

// renderer renders a dashboard's panels from db, over start..end.
type renderer struct {
	eng        *promql.Engine
	db         *tsdb.DB
	start, end time.Time
	step       time.Duration
}

// page renders the dashboard as an HTML page, its panels placed on
// Grafana's grid.
func (r renderer) page(d dashboard) string {
	var page strings.Builder
	const colW, rowH = 1600.0 / 24, 34.0
	height := 0.0
	for _, p := range d.Panels {
		x, y, w, h := p.GridPos.X*colW, p.GridPos.Y*rowH+40, p.GridPos.W*colW, p.GridPos.H*rowH
		height = math.Max(height, y+h)
		if p.Type == "row" {
			fmt.Fprintf(&page, `<div class="row" style="left:%.0fpx;top:%.0fpx;width:%.0fpx">▾ %s</div>`, x+8, y, w-16, html.EscapeString(p.Title))
			continue
		}
		fmt.Fprintf(&page, `<div class="panel" style="left:%.0fpx;top:%.0fpx;width:%.0fpx;height:%.0fpx"><div class="title">%s</div>%s</div>`,
			x+4, y+4, w-8, h-8, html.EscapeString(p.Title), draw(p, r.series(p), r.start, r.end, r.step, w-8, h-40))
	}
	return `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#111217;font-family:Inter,Helvetica,Arial,sans-serif;color:#ccccdc;width:1600px;height:` + strconv.Itoa(int(height)+10) + `px;position:relative}
.head{position:absolute;left:12px;top:8px;font-size:18px;color:#d8d9da}.head small{color:#8e8e8e;font-size:12px;margin-left:12px}
.panel{position:absolute;background:#181b1f;border:1px solid #2c3235;border-radius:3px;box-sizing:border-box;overflow:hidden}
.title{font-size:13px;font-weight:500;padding:6px 10px;color:#d8d9da}
.row{position:absolute;font-size:15px;color:#d8d9da;padding-top:8px}
.stat{font-size:44px;font-weight:600;text-align:center;margin-top:18px}
text{fill:#9fa3ab;font-size:10px}
</style></head><body><div class="head">` + html.EscapeString(d.Title) + `<small>` + r.start.UTC().Format("15:04:05") + ` to ` + r.end.UTC().Format("15:04:05") +
		` UTC · rendered by deploy/grafana/render (the Prometheus query engine over the e2e scrapes), not by Grafana</small></div>` + page.String() + `</body></html>`
}

// series runs a panel's queries and returns their series, by name.
func (r renderer) series(p panel) []line {
	var series []line
	for _, t := range p.Targets {
		expr := strings.NewReplacer("$__rate_interval", "20s", "$instance", ".*").Replace(t.Expr)
		q, err := r.eng.NewRangeQuery(context.Background(), r.db, nil, expr, r.start, r.end, r.step)
		if err != nil {
			log.Fatalf("%s: %s: %v", p.Title, expr, err)
		}
		res := q.Exec(context.Background())
		if res.Err != nil {
			log.Fatalf("%s: %s: %v", p.Title, expr, res.Err)
		}
		m, _ := res.Value.(promql.Matrix)
		for _, s := range m {
			// Grafana leaves out what is not a number (0/0 in a ratio
			// without traffic): so does this page.
			var pts []promql.FPoint
			for _, pt := range s.Floats {
				if !math.IsNaN(pt.F) && !math.IsInf(pt.F, 0) {
					pts = append(pts, pt)
				}
			}
			if len(pts) > 0 {
				series = append(series, line{name: legend(t.LegendFormat, s.Metric), points: pts})
			}
		}
		q.Close()
	}
	sort.SliceStable(series, func(i, j int) bool { return series[i].name < series[j].name })
	return series
}

// load appends every scrape of dir to db and returns the time they span.
// When an instance stops being scraped (a replica stopped), its series are
// marked stale as Prometheus marks them, so they do not linger for the
// lookback.
func load(db *tsdb.DB, dir string) (time.Time, time.Time, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.prom"))
	if err != nil || len(files) == 0 {
		return time.Time{}, time.Time{}, fmt.Errorf("no scrapes in %q: %v", dir, err)
	}
	sort.Strings(files)
	var first, last int64
	// Each instance's series of its latest scrape, and when that was.
	latest := map[string][]labels.Labels{}
	seen := map[string]int64{}
	for _, f := range files {
		ms, instance, series, err := loadScrape(db, f)
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		if first == 0 {
			first = ms
		}
		last = max(last, ms)
		latest[instance], seen[instance] = series, ms
	}
	app := db.Appender(context.Background())
	for instance, at := range seen {
		if last-at > 3000 { // scraped every 2s: this one stopped
			for _, l := range latest[instance] {
				if _, err := app.Append(0, l, at+2000, math.Float64frombits(value.StaleNaN)); err != nil {
					return time.Time{}, time.Time{}, err
				}
			}
		}
	}
	if err := app.Commit(); err != nil {
		return time.Time{}, time.Time{}, err
	}
	return time.UnixMilli(first), time.UnixMilli(last), nil
}

// loadScrape appends the scrape file f (<unix ms>-<instance>.prom) to db
// and returns its time, its instance and its series.
func loadScrape(db *tsdb.DB, f string) (int64, string, []labels.Labels, error) {
	name := filepath.Base(f)
	msText, instance, ok := strings.Cut(strings.TrimSuffix(name, ".prom"), "-")
	ms, err := strconv.ParseInt(msText, 10, 64)
	if !ok || err != nil {
		return 0, "", nil, fmt.Errorf("%s: not <unix ms>-<instance>.prom", name)
	}
	r, err := os.Open(f)
	if err != nil {
		return 0, "", nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(r)
	r.Close()
	if err != nil {
		return 0, "", nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &scrape{app: db.Appender(context.Background()), instance: instance, ms: ms}
	for fname, fam := range fams {
		for _, m := range fam.GetMetric() {
			if err := s.add(fname, fam.GetType(), m); err != nil {
				return 0, "", nil, fmt.Errorf("%s: %s: %w", name, fname, err)
			}
		}
	}
	if err := s.app.Commit(); err != nil {
		return 0, "", nil, err
	}
	return ms, instance, s.series, nil
}

// scrape appends one scrape's samples, all at ms, labelled with their
// instance, and keeps their series.
type scrape struct {
	app      storage.Appender
	instance string
	ms       int64
	series   []labels.Labels
}

// add appends metric m of family fname: a counter's, gauge's or untyped
// value, or a histogram's buckets, count and sum.
func (s *scrape) add(fname string, typ dto.MetricType, m *dto.Metric) error {
	switch typ {
	case dto.MetricType_COUNTER:
		return s.sample(fname, m, nil, m.GetCounter().GetValue())
	case dto.MetricType_GAUGE:
		return s.sample(fname, m, nil, m.GetGauge().GetValue())
	case dto.MetricType_UNTYPED:
		return s.sample(fname, m, nil, m.GetUntyped().GetValue())
	case dto.MetricType_HISTOGRAM:
		h := m.GetHistogram()
		for _, bk := range h.GetBucket() {
			if err := s.sample(fname+"_bucket", m, map[string]string{"le": strconv.FormatFloat(bk.GetUpperBound(), 'g', -1, 64)}, float64(bk.GetCumulativeCount())); err != nil {
				return err
			}
		}
		if err := s.sample(fname+"_bucket", m, map[string]string{"le": "+Inf"}, float64(h.GetSampleCount())); err != nil {
			return err
		}
		if err := s.sample(fname+"_count", m, nil, float64(h.GetSampleCount())); err != nil {
			return err
		}
		return s.sample(fname+"_sum", m, nil, h.GetSampleSum())
	}
	return nil
}

// sample appends v as metric with m's labels and extra.
func (s *scrape) sample(metric string, m *dto.Metric, extra map[string]string, v float64) error {
	b := labels.NewBuilder(labels.EmptyLabels())
	b.Set("__name__", metric)
	b.Set("instance", s.instance)
	b.Set("job", "avaedge")
	for _, l := range m.GetLabel() {
		b.Set(l.GetName(), l.GetValue())
	}
	for k, v := range extra {
		b.Set(k, v)
	}
	s.series = append(s.series, b.Labels())
	_, err := s.app.Append(0, b.Labels(), s.ms, v)
	return err
}

type line struct {
	name   string
	points []promql.FPoint
}

// legend fills a legendFormat's {{label}} from a series' labels.
func legend(format string, m labels.Labels) string {
	if format == "" {
		return m.String()
	}
	out := format
	m.Range(func(l labels.Label) {
		out = strings.ReplaceAll(out, "{{"+l.Name+"}}", l.Value)
	})
	return out
}

var palette = []string{"#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9", "#705da0", "#37872d", "#fade2a", "#ff9830", "#e02f44"}

// draw returns a panel's body: a stat's last value, a state timeline's
// bands, or a time series' lines with its legend.
func draw(p panel, series []line, start, end time.Time, step time.Duration, w, h float64) string {
	switch p.Type {
	case "stat":
		if len(series) == 0 || len(series[0].points) == 0 {
			return `<div class="stat">No data</div>`
		}
		t, c := valueText(p, series[0].points[len(series[0].points)-1].F)
		return `<div class="stat" style="color:` + c + `">` + html.EscapeString(t) + `</div>`
	case "state-timeline":
		return drawTimeline(p, series, start, end, w, h)
	}
	return drawLines(p, series, start, end, step, w, h)
}

// valueText returns how a panel shows v: its value mapping's text and
// colour, else v in its unit.
func valueText(p panel, v float64) (string, string) {
	for _, m := range p.FieldConfig.Defaults.Mappings {
		if o, ok := m.Options[strconv.FormatFloat(v, 'f', -1, 64)]; ok {
			return o.Text, colour(o.Color)
		}
	}
	return format(v, p.FieldConfig.Defaults.Unit), "#73bf69"
}

// drawTimeline draws a state timeline: a row of bands a series, labelled
// where a state begins.
func drawTimeline(p panel, series []line, start, end time.Time, w, h float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%.0f" height="%.0f">`, w, h)
	rowH := math.Min(40, (h-10)/math.Max(1, float64(len(series))))
	span := float64(end.Sub(start).Milliseconds())
	for i, s := range series {
		y := 4 + float64(i)*rowH
		fmt.Fprintf(&b, `<text x="6" y="%.0f">%s</text>`, y+rowH/2+3, html.EscapeString(s.name))
		var labels strings.Builder // drawn over the bands, where a state begins
		for j, pt := range s.points {
			next := end.UnixMilli()
			if j+1 < len(s.points) {
				next = s.points[j+1].T
			}
			x0 := 70 + (w-80)*float64(pt.T-start.UnixMilli())/span
			x1 := 70 + (w-80)*float64(next-start.UnixMilli())/span
			t, c := valueText(p, pt.F)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x0, y, math.Max(0.5, x1-x0), rowH-4, c)
			if j == 0 || s.points[j-1].F != pt.F {
				fmt.Fprintf(&labels, `<text x="%.0f" y="%.0f" style="fill:#111217;font-size:12px">%s</text>`, x0+4, y+rowH/2+2, html.EscapeString(t))
			}
		}
		b.WriteString(labels.String())
	}
	return b.String() + `</svg>`
}

// drawLines draws a time series: its axes, a line a series (broken where
// samples are missing) and its legend with each series' last value.
func drawLines(p panel, series []line, start, end time.Time, step time.Duration, w, h float64) string {
	legendW := math.Min(260, w*0.36)
	cw, ch := w-legendW-50, h-22
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, pt := range s.points {
			lo, hi = math.Min(lo, pt.F), math.Max(hi, pt.F)
		}
	}
	if math.IsInf(lo, 0) {
		return `<div class="stat" style="font-size:14px">No data</div>`
	}
	lo = math.Min(lo, 0)
	if hi <= lo {
		hi = lo + 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%.0f" height="%.0f">`, w, h)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		y := 4 + ch - ch*float64(i)/4
		fmt.Fprintf(&b, `<line x1="46" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#2c3235"/><text x="2" y="%.1f">%s</text>`, 46+cw, y, y, y+3, format(v, p.FieldConfig.Defaults.Unit))
	}
	span := float64(end.Sub(start).Milliseconds())
	for i := 0; i <= 4; i++ {
		t := start.Add(time.Duration(float64(end.Sub(start)) * float64(i) / 4))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`, 40+cw*float64(i)/4, ch+18, t.UTC().Format("15:04:05"))
	}
	for i, s := range series {
		c := palette[i%len(palette)]
		// Lines break where samples are missing (Grafana's default).
		var pts []string
		flushLine := func() {
			if len(pts) > 0 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, c, strings.Join(pts, " "))
			}
			pts = pts[:0]
		}
		for k, pt := range s.points {
			if k > 0 && pt.T-s.points[k-1].T > 2*step.Milliseconds() {
				flushLine()
			}
			x := 46 + cw*float64(pt.T-start.UnixMilli())/span
			y := 4 + ch - ch*(pt.F-lo)/(hi-lo)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		flushLine()
		if ly := 12 + float64(i)*13; ly < h-4 {
			last := s.points[len(s.points)-1].F
			fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="3" fill="%s"/><text x="%.0f" y="%.0f">%s</text><text x="%.0f" y="%.0f" text-anchor="end">%s</text>`,
				w-legendW, ly-4, c, w-legendW+14, ly, html.EscapeString(clip(s.name, 34)), w-6, ly, format(last, p.FieldConfig.Defaults.Unit))
		}
	}
	return b.String() + `</svg>`
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

func colour(c string) string {
	switch c {
	case "green":
		return "#73bf69"
	case "yellow":
		return "#fade2a"
	case "red":
		return "#f2495c"
	}
	return c
}

// format writes v in a panel's unit, as Grafana abbreviates it.
func format(v float64, unit string) string {
	switch unit {
	case "percentunit":
		return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
	case "s":
		switch {
		case v == 0:
			return "0 s"
		case v < 0.001:
			return strconv.FormatFloat(v*1e6, 'f', 0, 64) + " µs"
		case v < 1:
			return strconv.FormatFloat(v*1e3, 'f', 1, 64) + " ms"
		}
		return strconv.FormatFloat(v, 'f', 2, 64) + " s"
	case "reqps":
		return short(v) + " req/s"
	}
	return short(v)
}

func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "K"
	case a >= 10 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
