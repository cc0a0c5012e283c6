package feed

// skipper applies the journal to the operations of one Feed call.
type skipper struct {
	f     *Feeder
	j     *Journal
	refed map[string]struct{} // documents with an operation fed again
}

// skip reports whether op is to be skipped as already acknowledged: the
// journal holds a record at its source and offset with its very content, and
// no earlier operation on its document in this feed was fed again.
func (s *skipper) skip(op *Operation) bool {
	if s.j == nil || op.Source == "" {
		return false
	}
	last, ok := s.j.lastAcked(op.Source)
	if !ok || op.Offset > last {
		return false // nothing later can be skipped: no need to remember
	}
	key := op.ID.String()
	if _, refed := s.refed[key]; !refed {
		if rec, ok := s.j.find(op.Source, op.Offset); ok {
			if rec.hash == op.contentHash() {
				return true
			}
			s.f.stats.journalMismatches.Add(1)
			if s.j.mismatch(op) {
				s.f.client.Logger().Warn("feed: journal record differs from the input: feeding it again (the file changed, or another input has its name)",
					"source", op.Source, "line", op.Line, "offset", op.Offset)
			}
		}
	}
	if s.refed == nil {
		s.refed = map[string]struct{}{}
	}
	s.refed[key] = struct{}{}
	return false
}
