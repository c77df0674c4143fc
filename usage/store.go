package usage

import (
	"context"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"
)

// store keeps the aggregated usage: counter fields per key and bucket, log
// lines per key, and which keys had usage on which day. Redis, SQLite and
// memory implement it.
type store interface {
	// write applies a batch: counter increments and log lines.
	write(ctx context.Context, b *batch, now time.Time) error
	// buckets returns identity's counter fields of level lv for the buckets
	// starting in [from, to), by bucket start.
	buckets(ctx context.Context, identity string, lv level, from, to int64) (map[int64]map[string]int64, error)
	// logs returns up to q.limit of identity's kept log lines that q
	// selects, newest first (in the order of newer): a bounded read, however
	// long the key's log.
	logs(ctx context.Context, identity string, q logQuery) ([]logLine, error)
	// identities returns the keys that had usage on the days of [from, to).
	identities(ctx context.Context, from, to int64) ([]string, error)
}

// memStore is the store of an edge without Redis or a data directory,
// bounded: at most maxFields counter fields (the oldest buckets of the
// finest level are forgotten first), memLogsPerKey lines per key and
// memLogs lines in all.
type memStore struct {
	mu         sync.Mutex // guards everything below
	counts     map[bucketKey]map[string]int64
	fields     int
	logLines   map[string][]logLine // by identity, oldest first (the reverse of newer)
	nLogs      int
	days       map[int64]map[string]struct{}
	maxFields  int
	logsPerKey int
	logMaxAge  time.Duration
}

// The in-memory store keeps fewer log lines than the persistent ones.
const (
	memLogsPerKey = 1000
	memLogs       = 200_000
)

func newMemStore(maxFields, logsPerKey int, logMaxAge time.Duration) *memStore {
	return &memStore{counts: map[bucketKey]map[string]int64{}, logLines: map[string][]logLine{},
		days: map[int64]map[string]struct{}{}, maxFields: maxFields, logsPerKey: min(logsPerKey, memLogsPerKey), logMaxAge: logMaxAge}
}

func (s *memStore) write(_ context.Context, b *batch, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, f := range b.counts {
		dst := s.counts[k]
		if dst == nil {
			dst = map[string]int64{}
			s.counts[k] = dst
		}
		for name, v := range f {
			if _, ok := dst[name]; !ok {
				s.fields++
			}
			dst[name] += v
		}
		day := k.start / 86400 * 86400
		if s.days[day] == nil {
			s.days[day] = map[string]struct{}{}
		}
		s.days[day][k.identity] = struct{}{}
	}
	for id, lines := range b.logs {
		l := append(s.logLines[id], lines...)
		// A batch's lines may be older than the last one's (a request that
		// began before the drain it missed).
		sort.Slice(l, func(i, j int) bool { return newer(&l[j], &l[i]) })
		s.nLogs += len(lines)
		if over := len(l) - s.logsPerKey; over > 0 {
			l = l[over:]
			s.nLogs -= over
		}
		s.logLines[id] = l
	}
	s.expire(now)
	return nil
}

// expire forgets what is past its retention, then the oldest buckets and
// log lines beyond the bounds.
func (s *memStore) expire(now time.Time) {
	for k, f := range s.counts {
		if now.Unix()-k.start > int64(levels[k.level].retention/time.Second) {
			s.fields -= len(f)
			delete(s.counts, k)
		}
	}
	for day := range s.days {
		if now.Unix()-day > int64(levels[dayLevel].retention/time.Second) {
			delete(s.days, day)
		}
	}
	if s.fields > s.maxFields {
		keys := make([]bucketKey, 0, len(s.counts))
		for k := range s.counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].level != keys[j].level {
				return keys[i].level < keys[j].level
			}
			return keys[i].start < keys[j].start
		})
		for _, k := range keys {
			if s.fields <= s.maxFields {
				break
			}
			s.fields -= len(s.counts[k])
			delete(s.counts, k)
		}
	}
	oldest := now.Add(-s.logMaxAge).UnixMilli()
	for id, l := range s.logLines {
		i := 0
		for i < len(l) && l[i].At < oldest {
			i++
		}
		s.nLogs -= i
		if l = l[i:]; len(l) == 0 {
			delete(s.logLines, id)
		} else {
			s.logLines[id] = l
		}
	}
	for s.nLogs > memLogs {
		worst := longest(s.logLines)
		s.logLines[worst] = s.logLines[worst][1:]
		s.nLogs--
	}
}

func (s *memStore) buckets(_ context.Context, identity string, lv level, from, to int64) (map[int64]map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]map[string]int64{}
	step := levels[lv].seconds
	for t := from / step * step; t < to; t += step {
		if f := s.counts[bucketKey{identity, lv, t}]; f != nil {
			c := make(map[string]int64, len(f))
			for k, v := range f {
				c[k] = v
			}
			out[t] = c
		}
	}
	return out, nil
}

func (s *memStore) logs(_ context.Context, identity string, q logQuery) ([]logLine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.logLines[identity]
	// The lines q allows are those below the first one it does not.
	end := sort.Search(len(l), func(i int) bool { return !q.allows(&l[i]) || l[i].At >= q.to })
	var out []logLine
	for i := end - 1; i >= 0 && len(out) < q.limit && l[i].At >= q.from; i-- {
		out = append(out, l[i])
	}
	return out, nil
}

func (s *memStore) identities(_ context.Context, from, to int64) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]struct{}{}
	for day := from / 86400 * 86400; day < to; day += 86400 {
		for id := range s.days[day] {
			seen[id] = struct{}{}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
