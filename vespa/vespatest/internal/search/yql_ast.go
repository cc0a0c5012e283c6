package search

// statement is a parsed YQL select statement.
type statement struct {
	fields  []string // nil means every field (select *)
	sources []string // nil means every source (sources *)
	where   node
	orderBy []orderSpec
	limit   *int // the YQL limit (end index), if given
	offset  *int // the YQL offset, if given
	timeout *int // the YQL timeout in milliseconds, if given
	// groupings are the grouping pipe steps (| all(...)), in order.
	groupings []*gOp
}

// orderSpec is one key of an order by clause.
type orderSpec struct {
	field string
	desc  bool
}

// node is a condition of a where clause.
type node interface{ isNode() }

// operands returns the conditions an and, or, weakAnd or rank combines, and
// nil for any other node. A negation's operand is left out on purpose: the
// callers treat `!` each in their own way.
func operands(n node) []node {
	switch n := n.(type) {
	case andNode:
		return n.kids
	case orNode:
		return n.kids
	case weakAndNode:
		return n.kids
	case rankNode:
		return n.kids
	}
	return nil
}

// annotations are the {key: value} annotations before an operator or a term.
type annotations map[string]any

type (
	boolNode    struct{ val bool }
	andNode     struct{ kids []node }
	orNode      struct{ kids []node }
	notNode     struct{ kid node }
	weakAndNode struct {
		kids []node
		ann  annotations
	}
	// containsNode is field contains "term", phrase(...), or sameElement(...).
	containsNode struct {
		field  string
		term   string   // a single word, when phrase and same are empty
		phrase []string // phrase("a", "b")
		same   []node   // sameElement(conditions on sub-fields)
		ann    annotations
	}
	// compareNode is field op value with op one of = < <= > >=.
	compareNode struct {
		field string
		op    string
		num   float64
		// inum is num exactly when the literal is an integer (isInt): a long
		// compares with it as an integer, as the attribute's search does, so
		// 2^53+1 is not 2^53.
		inum  int64
		isInt bool
		str   string
		isStr bool
		isB   bool
		b     bool
	}
	// rangeNode is range(field, lo, hi), inclusive unless the bounds annotation says otherwise.
	rangeNode struct {
		field          string
		lo, hi         float64
		loOpen, hiOpen bool
	}
	// nnNode is nearestNeighbor(field, queryTensor).
	nnNode struct {
		field      string
		query      string
		targetHits int
		threshold  float64 // distanceThreshold, +Inf when absent
		ann        annotations
	}
	// userQueryNode is userQuery(): replaced by the parsed query parameter before evaluation.
	userQueryNode struct{ ann annotations }
	// userInputNode is userInput(@param) or userInput("text").
	userInputNode struct {
		param   string
		literal string
		isLit   bool
		ann     annotations
	}
)

func (boolNode) isNode()      {}
func (andNode) isNode()       {}
func (orNode) isNode()        {}
func (notNode) isNode()       {}
func (weakAndNode) isNode()   {}
func (containsNode) isNode()  {}
func (compareNode) isNode()   {}
func (rangeNode) isNode()     {}
func (*nnNode) isNode()       {}
func (userQueryNode) isNode() {}
func (userInputNode) isNode() {}

// rankNode is rank(first, others...): it matches as first and ranks with every child.
type rankNode struct{ kids []node }

func (rankNode) isNode() {}
