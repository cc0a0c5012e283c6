// Package grouping builds statements of Vespa's grouping language, the
// part of a YQL query after the pipe that groups and aggregates its
// matches:
//
//	g := grouping.All(
//		grouping.Group(grouping.Attr("artist")),
//		grouping.Max(5),
//		grouping.Order(grouping.Desc(grouping.Count())),
//		grouping.Each(grouping.Output(grouping.Count())),
//	)
//	yql, err := query.Select().From("music").Where(query.True()).Limit(0).GroupingOf(g).YQL()
//	// select * from music where true limit 0 | all(group(artist) max(5) order(-count()) each(output(count())))
//
// [All] and [Each] are the operations; [Group], [Max], [Precision], [Order]
// and [Output] are their clauses; [Attr], [Count], [Sum], [Avg], [MinOf],
// [MaxOf], [Summary], [Relevance] and [Predefined] (with [Bucket]) are the
// expressions. Labels ([Op.As], [Expr.As]) name grouping lists, hit lists
// and output fields in the result; read them with query's Hit.List,
// Hit.Aggregate and GroupHits.
//
// Like query's YQL builder, every name is validated against the grammar
// (GroupingParser.jj in Vespa's container-search) and every string is
// escaped, so a label or bucket bound taken from user input cannot change
// the statement, nor end the grouping token early (YQL's lexer delimits a
// grouping by its brackets, without looking at strings: a bracket inside a
// string is written as a \u escape). Values are immutable: every method
// returns a modified copy. Errors are kept and returned by [Op.Text].
package grouping
