package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/avaedge/avaedge/internal/markdown"
	"github.com/avaedge/avaedge/internal/redistest"
)

// dashboardPath is the Grafana dashboard shipped in deploy/grafana.
var dashboardPath = filepath.Join("..", "..", "deploy", "grafana", "avaedge.json")

// dashboard is the part of Grafana's dashboard model the tests read.
type dashboard struct {
	UID           string `json:"uid"`
	Title         string `json:"title"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Datasource *datasourceRef  `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *datasourceRef `json:"datasource"`
	GridPos    struct{ X, Y, W, H int }
	Targets    []struct {
		RefID      string         `json:"refId"`
		Expr       string         `json:"expr"`
		Datasource *datasourceRef `json:"datasource"`
	} `json:"targets"`
}

func readDashboard(t *testing.T) (dashboard, []byte) {
	t.Helper()
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	return d, b
}

// TestDashboardModel: the dashboard is Grafana's dashboard model as an
// import expects it: a uid, a schema version, a Prometheus data source chosen
// by a variable (no data source uid of the author's Grafana), panels that use
// it, each on the 24-column grid, with unique ids and queries.
func TestDashboardModel(t *testing.T) {
	d, _ := readDashboard(t)
	if d.UID == "" || d.Title == "" || d.SchemaVersion < 36 {
		t.Fatalf("uid %q, title %q, schemaVersion %d: want all set, schemaVersion >= 36", d.UID, d.Title, d.SchemaVersion)
	}
	hasDS := false
	for _, v := range d.Templating.List {
		if v.Name == "datasource" && v.Type == "datasource" && string(v.Query) == `"prometheus"` {
			hasDS = true
		}
		if v.Datasource != nil && v.Datasource.UID != "${datasource}" {
			t.Errorf("variable %s uses data source %+v; want ${datasource}", v.Name, v.Datasource)
		}
	}
	if !hasDS {
		t.Fatal("no datasource variable of type datasource for prometheus")
	}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.W <= 0 || p.GridPos.X+p.GridPos.W > 24 || p.GridPos.H <= 0 {
			t.Errorf("panel %q: gridPos %+v off the 24-column grid", p.Title, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != "${datasource}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: data source %+v, %d queries; want prometheus ${datasource} and queries", p.Title, p.Datasource, len(p.Targets))
		}
		for _, q := range p.Targets {
			if q.Expr == "" || q.RefID == "" || q.Datasource == nil || q.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q: query %+v", p.Title, q)
			}
		}
	}
}

var metricName = regexp.MustCompile(`\bavaedge_[a-zA-Z0-9_]+`)

// TestDashboardMetricsExported: every metric the dashboard's queries name
// is one the built edge's /metrics exports, once it has served traffic (a
// miss, a hit, a parameter error, an unknown key, a refusal) with Redis, an
// upstream and the dev chain's index.
func TestDashboardMetricsExported(t *testing.T) {
	d, raw := readDashboard(t)
	names := map[string]bool{}
	for _, m := range metricName.FindAllString(string(raw), -1) {
		names[m] = true
	}
	if len(names) < 8 {
		t.Fatalf("the dashboard names %d metrics: %v", len(names), names)
	}
	rs := redistest.Start(t)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"blocks":[]}`)
	}))
	t.Cleanup(upstream.Close)
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	os.WriteFile(keys, []byte("plans:\n  tiny: {cu_per_day: 10}\nkeys:\n  - {id: k, key: dash-key, plan: tiny}\nanonymous: tiny\n"), 0o600)
	pub, admin, _ := startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": upstream.URL, "AVAEDGE_REDIS": rs.URL(),
		"AVAEDGE_KEYS_FILE": keys, "AVAEDGE_USAGE_FLUSH_INTERVAL": "100ms"})
	for _, c := range []struct{ path, key string }{
		{"/v1/chains/43114/blocks", "dash-key"}, {"/v1/chains/43114/blocks", "dash-key"}, {"/v1/chains/43114/blocks?pageSize=1000", "dash-key"},
		{"/v1/chains", "unknown-key"}, {"/v1/chains/43114/blocks?pageSize=1", "dash-key"},
	} {
		r, _ := http.NewRequest(http.MethodGet, pub+c.path, nil)
		r.Header.Set("x-glacier-api-key", c.key)
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
	}
	var missing []string
	deadline := time.Now().Add(60 * time.Second)
	for {
		fams := scrape(t, admin+"/metrics")
		missing = missing[:0]
		for n := range names {
			if !exported(fams, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("the dashboard (%d panels) queries metrics /metrics does not export: %v", len(d.Panels), missing)
	}
	checkMetricsDocumented(t, scrape(t, admin+"/metrics"))
}

// checkMetricsDocumented fails on an avaedge_ family of fams that
// docs/operations.md's metrics table does not name.
func checkMetricsDocumented(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	tb, err := markdown.ReadTable("docs/operations.md", "metric", "type", "meaning")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, row := range tb.Rows {
		documented[strings.Trim(row[0], "`")] = true
	}
	for name := range fams {
		if strings.HasPrefix(name, "avaedge_") && !documented[name] {
			t.Errorf("/metrics exports %s; docs/operations.md's metrics table does not name it", name)
		}
	}
}

// exported reports whether name is a family of fams, or a histogram's or
// summary's series (_bucket, _sum, _count) of one.
func exported(fams map[string]*dto.MetricFamily, name string) bool {
	if _, ok := fams[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := fams[base]; ok && (f.GetType() == dto.MetricType_HISTOGRAM || (suffix != "_bucket" && f.GetType() == dto.MetricType_SUMMARY)) {
				return true
			}
		}
	}
	return false
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	return fams
}
