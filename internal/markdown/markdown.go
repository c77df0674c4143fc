// Package markdown reads the parts of the project's Markdown pages (README.md
// and docs/) that tests check against the code: headings and their anchors,
// tables, links, code blocks and code spans. It is not a Markdown parser: it
// knows the subset the pages are written in (ATX headings, pipe tables,
// fenced code blocks, inline links). Its functions are safe for concurrent
// use.
package markdown

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Page is one Markdown file, split into lines.
type Page struct {
	// Path is the file's path relative to the repository's root, with
	// forward slashes ("docs/routes.md").
	Path  string
	Lines []string
}

// Read reads the page at rel, a path from the repository's root, wherever
// under the repository the caller runs (tests run in their package's
// directory).
func Read(rel string) (*Page, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	return Parse(rel, string(b)), nil
}

// Parse splits text into a Page named rel.
func Parse(rel, text string) *Page {
	return &Page{Path: rel, Lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
}

// Root returns the repository's root: the nearest directory above the
// working directory whose go.mod declares the avaedge module.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/avaedge/avaedge\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("markdown: no avaedge go.mod above the working directory")
		}
		dir = parent
	}
}

// Prose returns the page's lines with those of fenced code blocks (and the
// fences) blanked, so that their contents are read as neither headings,
// tables nor links. Line numbers are kept.
func (p *Page) Prose() []string {
	out := make([]string, len(p.Lines))
	fenced := false
	for i, l := range p.Lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out[i] = l
		}
	}
	return out
}

// Heading is one ATX heading.
type Heading struct {
	Level int
	Text  string
	Line  int // 1-based
}

// Headings returns the page's headings, outside code blocks.
func (p *Page) Headings() []Heading {
	var hs []Heading
	for i, l := range p.Prose() {
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(l[level:], " ") {
			continue
		}
		hs = append(hs, Heading{Level: level, Text: strings.TrimSpace(l[level:]), Line: i + 1})
	}
	return hs
}

// Anchor returns the fragment GitHub gives a heading: lower case, spaces as
// hyphens, every character but letters, digits, '-' and '_' dropped.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the set of the page's heading anchors.
func (p *Page) Anchors() map[string]bool {
	out := map[string]bool{}
	for _, h := range p.Headings() {
		out[Anchor(h.Text)] = true
	}
	return out
}

// Link is one inline link or image.
type Link struct {
	Target string
	Line   int // 1-based
}

var linkRE = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// Links returns the page's inline links and images, outside code blocks.
func (p *Page) Links() []Link {
	var out []Link
	for i, l := range p.Prose() {
		for _, m := range linkRE.FindAllStringSubmatch(stripCode(l), -1) {
			out = append(out, Link{Target: m[1], Line: i + 1})
		}
	}
	return out
}

// stripCode blanks the code spans of a line, so that text in them is not
// read as a link.
func stripCode(l string) string {
	b := []byte(l)
	in := false
	for i := range b {
		if b[i] == '`' {
			in = !in
		} else if in {
			b[i] = ' '
		}
	}
	return string(b)
}

// CodeBlocks returns the contents of the page's fenced code blocks, in
// order, each without its fences.
func (p *Page) CodeBlocks() []string {
	var out []string
	var cur []string
	fenced := false
	for _, l := range p.Lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if fenced {
				out = append(out, strings.Join(cur, "\n"))
				cur = nil
			}
			fenced = !fenced
			continue
		}
		if fenced {
			cur = append(cur, l)
		}
	}
	return out
}

var spanRE = regexp.MustCompile("`([^`]+)`")

// Spans returns the code spans of s (the text between backticks).
func Spans(s string) []string {
	var out []string
	for _, m := range spanRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// Table is one pipe table.
type Table struct {
	Header []string
	Rows   [][]string
	Line   int // 1-based, of the header
}

// Tables returns the page's pipe tables, outside code blocks.
func (p *Page) Tables() []Table {
	var out []Table
	prose := p.Prose()
	for i := 0; i+1 < len(prose); i++ {
		if !isRow(prose[i]) || !isSeparator(prose[i+1]) || i > 0 && isRow(prose[i-1]) {
			continue
		}
		t := Table{Header: Cells(prose[i]), Line: i + 1}
		for j := i + 2; j < len(prose) && isRow(prose[j]); j++ {
			t.Rows = append(t.Rows, Cells(prose[j]))
		}
		out = append(out, t)
	}
	return out
}

// Table returns the one table whose header row is header (its cells'
// text, e.g. "| route | path |").
func (p *Page) Table(header ...string) (Table, error) {
	var found []Table
	for _, t := range p.Tables() {
		if strings.Join(t.Header, "|") == strings.Join(header, "|") {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return Table{}, fmt.Errorf("%s: %d tables with the header %q; want 1", p.Path, len(found), header)
	}
	return found[0], nil
}

// ReadTable reads the page at rel and returns its one table whose header
// row is header.
func ReadTable(rel string, header ...string) (Table, error) {
	p, err := Read(rel)
	if err != nil {
		return Table{}, err
	}
	return p.Table(header...)
}

// Column returns the cells of the column named name, in row order.
func (t Table) Column(name string) ([]string, error) {
	for c, h := range t.Header {
		if h == name {
			out := make([]string, len(t.Rows))
			for r, row := range t.Rows {
				if c < len(row) {
					out[r] = row[c]
				}
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("table at line %d has no column %q (has %q)", t.Line, name, t.Header)
}

func isRow(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "|") }

func isSeparator(l string) bool {
	cells := Cells(l)
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || c == "" {
			return false
		}
	}
	return len(cells) > 0
}

// Cells splits a table row into its trimmed cells. A '|' inside a code span
// or escaped as "\|" does not split.
func Cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cur strings.Builder
	code := false
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c == '`':
			code = !code
			cur.WriteByte(c)
		case c == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
