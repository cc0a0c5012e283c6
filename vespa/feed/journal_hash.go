package feed

// contentHash returns the 64-bit FNV-1a hash of what the operation does —
// its kind, document ID, condition, create flag and request body — never 0,
// so that a journal record is bound to the operation's content and not only
// to its place in a file. It is computed once and kept in op.hash.
func (op *Operation) contentHash() uint64 {
	if op.hash != 0 {
		return op.hash
	}
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	add := func(b byte) { h = (h ^ uint64(b)) * prime }
	addString := func(s string) {
		for i := range len(s) {
			add(s[i])
		}
		add(0xff) // a separator no UTF-8 text contains
	}
	add(byte(op.Kind & 0xff)) // a small enum
	addString(op.ID.String())
	addString(op.Condition)
	if op.Create {
		add(1)
	}
	body := op.body
	if body == nil && op.Fields != nil {
		body = op.requestBody()
	}
	for _, c := range body {
		add(c)
	}
	if h == 0 {
		h = 1
	}
	op.hash = h
	return h
}
