// Package pgpipe sends a PostgreSQL transaction's writes pipelined: the
// statements are queued and sent a batch at a time, in order, in one round
// trip each. The PostgreSQL stores of the indexes (evmindex, pindex) write
// their catch-up batches through it.
package pgpipe

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Pipe queues statements of the transaction Tx and sends them Size at a
// time. It is not safe for concurrent use: one writer owns it.
type Pipe struct {
	Tx   pgx.Tx
	Ctx  context.Context
	Size int
	// Sent counts the statements queued since the Pipe was made.
	Sent int64
	q    pgx.Batch
}

// Queue adds a statement, sending the queue when it holds Size; a
// statement's error is returned by the call that sends it, at the latest by
// Flush.
func (p *Pipe) Queue(sql string, args ...any) error {
	p.Sent++
	p.q.Queue(sql, args...)
	if p.q.Len() >= p.Size {
		return p.Flush()
	}
	return nil
}

// Flush sends the queued statements, so that a read sees them.
func (p *Pipe) Flush() error {
	if p.q.Len() == 0 {
		return nil
	}
	err := p.Tx.SendBatch(p.Ctx, &p.q).Close()
	p.q = pgx.Batch{}
	return err
}
