// Package catalog is avaedge's route catalogue: every route the edge knows
// (the Data API and Metrics API operations and the node's JSON-RPC methods),
// each with its parameters and their validation rules, its price in compute
// units, its cache class and its canonical cache-key query; the published
// prices of the routes it forwards without listing them; and the node's
// endpoint paths.
//
// The catalogue is the one place a parameter rule is written: the edge
// validates a request with Route.Validate and the local world receives the
// Values it returns, defaults filled, without validating again. Messages
// are those of the real services (NestJS class-validator wording, e.g.
// "pageSize must not be greater than 100").
package catalog
