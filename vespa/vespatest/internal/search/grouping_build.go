package search

import "strings"

// This file holds the checks of Vespa's grouping request before any bound:
// GroupingOperation.resolveLevel (container-search grouping/request), which
// refuses an expression at a level it does not apply to, and the labels
// RequestBuilder gives group lists, hit lists and outputs
// (GroupingTransform.putLabel), which must differ among siblings. Both are
// IllegalArgumentExceptions of GroupingExecutor: code 4, HTTP 400.

// levelDesc is GroupingOperation.getLevelDesc.
func levelDesc(level int) string {
	switch {
	case level <= 0:
		return "single hit"
	case level == 1:
		return "single group"
	}
	return strings.Repeat("list of ", level-1) + "groups"
}

// resolveLevels is GroupingOperation.resolveLevel from the root's level 1:
// level 0 is a hit, 1 a group, 2 a list of groups. It records each
// operation's level for the labels. The operation-level refusals (each or
// group or max over a single hit) are left to the evaluation.
func resolveLevels(op *gOp, level int, levels map[*gOp]int) error {
	if op.each {
		level--
	}
	if op.groupBy != nil {
		if err := exprLevel(op.groupBy, level-1); err != nil {
			return err
		}
		level++
	}
	levels[op] = level
	for i := range op.outputs {
		if err := exprLevel(&op.outputs[i], level); err != nil {
			return err
		}
	}
	for _, c := range op.children {
		if err := resolveLevels(c, level, levels); err != nil {
			return err
		}
	}
	return nil
}

// exprLevel is GroupingExpression.resolveLevel for the subset: document
// values (an attribute, relevance(), summary()) apply to a hit, aggregators
// to a group, their argument to its hits.
func exprLevel(e *gExpr, level int) error {
	switch e.kind {
	case gAttr, gRelevance, gSummary:
		if level != 0 {
			return &carriedResultError{e: invalidParameter("Expression '" + e.text() + "' not applicable for " + levelDesc(level) + ".")}
		}
	case gCount, gSum, gAvg, gMin, gMax:
		if level < 1 {
			return &carriedResultError{e: invalidParameter("Expression '" + e.text() + "' not applicable for " + levelDesc(level) + ".")}
		}
		if e.arg != nil {
			return exprLevel(e.arg, level-1)
		}
	}
	return nil
}

// labels is GroupingTransform's label bookkeeping: the labels taken under
// each group, by the group's tag.
type labels struct {
	tag      int
	children map[int]map[string]bool
}

// put is GroupingTransform.putLabel.
func (l *labels) put(parent int, label, kind string) error {
	if l.children[parent] == nil {
		l.children[parent] = map[string]bool{}
	}
	if l.children[parent][label] {
		return &carriedResultError{e: invalidParameter("Can not use " + kind + " label '" + label + "' for multiple siblings.")}
	}
	l.children[parent][label] = true
	return nil
}
