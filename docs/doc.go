// Package docs holds avaedge's documentation pages (the Markdown files of
// this folder) and no code: its tests check the pages and README.md against
// the code, so that a page cannot go stale unnoticed. The README links every
// page, stays short and begins with the two set-up commands; every page
// begins with what it is for; every link, path, test name and metric a page
// names exists; and the reference tables (the environment variables, the
// config and keys-file fields, the published plans, the route catalogue,
// the cache classes, the usage routes, the headers) are the code's.
package docs
