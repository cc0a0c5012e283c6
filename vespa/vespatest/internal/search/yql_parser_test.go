package search

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// dump renders a parsed statement canonically for golden comparisons.
func dump(st *statement) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fields=%v sources=%v where=%s", st.fields, st.sources, dumpNode(st.where))
	for _, o := range st.orderBy {
		fmt.Fprintf(&b, " order=%s", o.field)
		if o.desc {
			b.WriteString(":desc")
		}
	}
	for _, x := range []struct {
		name string
		v    *int
	}{{"limit", st.limit}, {"offset", st.offset}, {"timeout", st.timeout}} {
		if x.v != nil {
			fmt.Fprintf(&b, " %s=%d", x.name, *x.v)
		}
	}
	return b.String()
}

func dumpNode(n node) string {
	list := func(name string, kids []node) string {
		parts := make([]string, len(kids))
		for i, k := range kids {
			parts[i] = dumpNode(k)
		}
		return name + "(" + strings.Join(parts, ",") + ")"
	}
	switch n := n.(type) {
	case boolNode:
		return fmt.Sprint(n.val)
	case andNode:
		return list("AND", n.kids)
	case orNode:
		return list("OR", n.kids)
	case weakAndNode:
		return list("WAND"+dumpAnn(n.ann), n.kids)
	case rankNode:
		return list("RANK", n.kids)
	case notNode:
		return "NOT(" + dumpNode(n.kid) + ")"
	case containsNode:
		switch {
		case n.phrase != nil:
			return fmt.Sprintf("%s:phrase%q", n.field, n.phrase)
		case n.same != nil:
			return list(n.field+":same", n.same)
		}
		return fmt.Sprintf("%s:%q%s", n.field, n.term, dumpAnn(n.ann))
	case compareNode:
		switch {
		case n.isStr:
			return fmt.Sprintf("%s%s%q", n.field, n.op, n.str)
		case n.isB:
			return fmt.Sprintf("%s%s%v", n.field, n.op, n.b)
		}
		return fmt.Sprintf("%s%s%v", n.field, n.op, n.num)
	case rangeNode:
		return fmt.Sprintf("range(%s,%v,%v,%v,%v)", n.field, n.lo, n.hi, n.loOpen, n.hiOpen)
	case *nnNode:
		return fmt.Sprintf("nn(%s,%s,%d,%v)", n.field, n.query, n.targetHits, n.threshold)
	case userQueryNode:
		return "userQuery()"
	case userInputNode:
		if n.isLit {
			return fmt.Sprintf("userInput(%q)%s", n.literal, dumpAnn(n.ann))
		}
		return "userInput(@" + n.param + ")" + dumpAnn(n.ann)
	}
	return fmt.Sprintf("?%T", n)
}

func dumpAnn(a annotations) string {
	if len(a) == 0 {
		return ""
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, a[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestParseYQL_Golden(t *testing.T) {
	cases := []struct{ in, want string }{
		{`select * from sources * where true`, `fields=[] sources=[] where=true`},
		{`SELECT * FROM music WHERE false;`, `fields=[] sources=[music] where=false`},
		{`select title, year from sources music, books where title contains "a"`,
			`fields=[title year] sources=[music books] where=title:"a"`},
		{`select * from music where title contains 'it\'s' and year >= 2000 or !(year < 10)`,
			`fields=[] sources=[music] where=OR(AND(title:"it's",year>=2000),NOT(year<10))`},
		{`select * from music where a contains "x\"y\\z\u00e6"`, `fields=[] sources=[music] where=a:"x\"y\\zæ"`},
		{`select * from music where title contains phrase("a", "b")`,
			`fields=[] sources=[music] where=title:phrase["a" "b"]`},
		{`select * from music where m contains sameElement(key contains "k", value > 3)`,
			`fields=[] sources=[music] where=m:same(key:"k",value>3)`},
		{`select * from music where range(year, 2000, Infinity) and range(p, -Infinity, -1.5)`,
			`fields=[] sources=[music] where=AND(range(year,2000,+Inf,false,false),range(p,-Inf,-1.5,false,false))`},
		{`select * from music where range(year, -INFINITY, infinity)`,
			`fields=[] sources=[music] where=range(year,-Inf,+Inf,false,false)`},
		{`select * from music where {bounds:"leftOpen"}range(year, 1, 2)`,
			`fields=[] sources=[music] where=range(year,1,2,true,false)`},
		{`select * from music where {targetHits: 10}nearestNeighbor(emb, q)`,
			`fields=[] sources=[music] where=nn(emb,q,10,+Inf)`},
		{`select * from music where {targetHits:5, distanceThreshold: 0.5, approximate:false}nearestNeighbor(emb,q)`,
			`fields=[] sources=[music] where=nn(emb,q,5,0.5)`},
		{`select * from music where userQuery() and {defaultIndex:"title", grammar:"all"}userInput(@q)`,
			`fields=[] sources=[music] where=AND(userQuery(),userInput(@q){defaultIndex=title,grammar=all})`},
		{`select * from music where {targetHits:3}weakAnd(a contains "x", b contains "y")`,
			`fields=[] sources=[music] where=WAND{targetHits=3}(a:"x",b:"y")`},
		{`select * from music where year = 2015 and flag = true and s = "v" and 2000 < year`,
			`fields=[] sources=[music] where=AND(year=2015,flag=true,s="v",year>2000)`},
		{`select * from music where year in (1, 2, "x")`,
			`fields=[] sources=[music] where=OR(year=1,year=2,year="x")`},
		{`select * from music where true order by year desc, title limit 15 offset 5 timeout 70`,
			`fields=[] sources=[music] where=true order=year:desc order=title limit=15 offset=5 timeout=70`},
		{`select * from music where title contains ({prefix:true}"hea")`,
			`fields=[] sources=[music] where=title:"hea"{prefix=true}`},
		{`select * from music where rank(a contains "x", b contains "y")`,
			`fields=[] sources=[music] where=RANK(a:"x",b:"y")`},
		{`select * from music where year > -5L and x < 1e3`,
			`fields=[] sources=[music] where=AND(year>-5,x<1000)`},
	}
	for _, c := range cases {
		st, err := parseYQL(c.in)
		if err != nil {
			t.Errorf("parseYQL(%q): %v", c.in, err)
			continue
		}
		if got := dump(st); got != c.want {
			t.Errorf("parseYQL(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestParseYQL_SyntaxErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`selectz * from foo where bar > 1453501295`, "query:L1:0 mismatched input 'selectz' expecting SELECT"},
		{`select * from music`, "mismatched input '<EOF>' expecting WHERE"},
		{`select * from music where`, "no viable alternative at input '<EOF>'"},
		{`select * from music where title contains "x`, "unterminated string literal"},
		{`select * from music where a contains "\q"`, `invalid escape '\q'`},
		{`select * from music where (a contains "x"`, "mismatched input '<EOF>' expecting ')'"},
		{`select * from music where a contains "x" b`, "extraneous input 'b' expecting <EOF>"},
		{`select * from music where nearestNeighbor(emb, q)`, "requires targetHits annotation"},
		{`select * from music where a # 3`, "token recognition error at: '#'"},
		{`select * from music where foo(1)`, "no viable alternative at input 'foo('"},
		{`select * from music where true limit x`, "mismatched input 'x' expecting INTEGER"},
		{"select * from music where\n  a >", "query:L2:5 mismatched input '<EOF>' expecting a number"},
		{`select * from music where range(year, "1", 2)`, `mismatched input '"1"' expecting a number`},
		{`select * from music where range(year, 1, infinite)`, "mismatched input 'infinite' expecting a number"},
		{`select * from music where range(year, 1)`, "mismatched input ')' expecting ','"},
		{`select title, 3 from music where true`, "query:L1:14 mismatched input '3' expecting {'*', IDENTIFIER}"},
		{`select * from sources music, "b" where true`, `query:L1:29 mismatched input '"b"' expecting {'*', IDENTIFIER}`},
		{`select * from music where true order by year, 3`, "query:L1:46 mismatched input '3' expecting IDENTIFIER"},
		{`select * from music where year in (1, x)`, "query:L1:38 mismatched input 'x' expecting {STRING, INTEGER}"},
		{`select * from music where year in (1, 2`, "mismatched input '<EOF>' expecting ')'"},
		{`select * from music where a contains phrase("a", 1)`, "query:L1:49 mismatched input '1' expecting STRING"},
		{`select * from music where m contains sameElement(key contains "k",)`, "query:L1:66 no viable alternative at input ')'"},
		{`select * from music where a contains "x" or`, "no viable alternative at input '<EOF>'"},
		{`select * from music where ` + strings.Repeat("(", 500) + "true" + strings.Repeat(")", 500), "nested deeper"},
	}
	for _, c := range cases {
		_, err := parseYQL(c.in)
		var se *syntaxError
		if !errors.As(err, &se) {
			t.Errorf("parseYQL(%q) = %v, want a syntax error", c.in, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseYQL(%q) error %q, want it to contain %q", c.in, err, c.want)
		}
	}
}

func TestParseYQL_NotImplemented(t *testing.T) {
	for _, in := range []string{
		`select * from music where true | all(group(a) each(output(xorbit(a, 3))))`,
		`select * from music where a contains near("a", "b")`,
		`select * from music where wand(a, {"x":1})`,
		`select * from music where a matches "x.*"`,
		`select * from music where fuzzy("x")`,
		`select * from music where dotProduct(a, {"x":1})`,
		`select * from music where true order by {function:"lowercase"}title`,
	} {
		_, err := parseYQL(in)
		var ni *notImplementedError
		if !errors.As(err, &ni) {
			t.Errorf("parseYQL(%q) = %v, want a not-implemented error", in, err)
			continue
		}
		if !strings.Contains(err.Error(), "vespatest emulator does not implement") {
			t.Errorf("error %q does not say the emulator does not implement it", err)
		}
	}
}
