package edgetls

import "sync"

// syncMap is a string-to-string map safe for concurrent use.
type syncMap struct {
	mu sync.Mutex // guards m
	m  map[string]string
}

func (s *syncMap) Store(k, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[k] = v
}

func (s *syncMap) LoadAndDelete(k string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	delete(s.m, k)
	return v, ok
}
