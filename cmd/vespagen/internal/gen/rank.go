package gen

import (
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/schema"
)

// profiles returns the rank profiles a query of s may name: its own in
// declaration order, then those of the schemas it inherits that it does not
// override.
func (g *generator) profiles(s *schema.Schema) []*schema.RankProfile {
	var out []*schema.RankProfile
	seen := map[string]bool{}
	for sch, depth := s, 0; sch != nil && depth < 32; sch, depth = g.app.Schema(sch.Inherits), depth+1 {
		for _, rp := range sch.RankProfiles {
			if !seen[rp.Name] {
				seen[rp.Name] = true
				out = append(out, rp)
			}
		}
	}
	return out
}

// input is how one rank input is written: its Go field, type, and the
// statement that adds it to a request's Inputs when it is set.
type input struct {
	field, typ, doc string
	set, value      string // the condition and the value sent
}

func inputOf(in *schema.Input, field string) input {
	x := "in." + field
	switch {
	case in.String:
		return input{field, "string", "a string", x + ` != ""`, x}
	case in.Type == nil:
		return input{field, "*float64", "a number", x + " != nil", "*" + x}
	case len(in.Type.Dims) == 1 && in.Type.Dims[0].Mapped:
		c := cellType(in.Type.Cell)
		return input{field, "vespa.MappedTensor[" + c + "]", in.Type.String(), x + " != nil", "map[string]" + c + "(" + x + ")"}
	case len(in.Type.Dims) == 1:
		c := cellType(in.Type.Cell)
		return input{field, "vespa.DenseTensor[" + c + "]", in.Type.String(), x + " != nil", "[]" + c + "(" + x + ")"}
	}
	return input{field, "string", in.Type.String() + " as Vespa's tensor literal text (\"{{p:a,x:0}:1.0}\")",
		x + ` != ""`, x}
}

// rankProfiles writes the profile names, and per profile with inputs a
// struct of them that fills a query.Request.
func (g *generator) rankProfiles(s *schema.Schema, base string) error {
	rps := g.profiles(s)
	if len(rps) == 0 {
		return nil
	}
	names := make([]string, len(rps))
	g.p("")
	g.line(comment("", "The rank profiles of "+s.Name+" (query.Request.Ranking), inherited ones included; "+
		"\"default\" and \"unranked\" exist without being declared."))
	g.p("const (")
	for i, rp := range rps {
		names[i] = base + "RankProfile" + goName(rp.Name)
		if err := g.pkg.claim(names[i], origin{"rank-profile " + rp.Name + " of schema " + s.Name, fileOf(g, rp, s), rp.Line}); err != nil {
			return err
		}
		g.p("%s = %s", names[i], strconv.Quote(rp.Name))
	}
	g.p(")")
	for i, rp := range rps {
		ins := rp.AllInputs()
		if len(ins) == 0 {
			continue
		}
		typ := base + goName(rp.Name) + "Inputs"
		o := origin{"rank-profile " + rp.Name + " of schema " + s.Name, fileOf(g, rp, s), rp.Line}
		if err := g.pkg.claim(typ, o); err != nil {
			return err
		}
		sc := newScope(typ, "Apply")
		var fields []input
		for _, in := range ins {
			n := strings.TrimSuffix(strings.TrimPrefix(in.Name, "query("), ")")
			f := goName(n)
			if err := sc.claim(f, origin{"input " + in.Name + " of " + o.what, o.file, o.line}); err != nil {
				return err
			}
			fields = append(fields, inputOf(in, f))
		}
		g.p("")
		g.line(comment("", typ+" are the query inputs of rank profile "+rp.Name+" of "+s.Name+", inherited ones "+
			"included. Apply sets them on a request; an input left at its zero value (nil, \"\") is not "+
			"sent, so the profile's default applies."))
		g.p("type %s struct {", typ)
		for j, f := range fields {
			c := f.field + " is " + ins[j].Name + ", " + f.doc
			if ins[j].Default != "" {
				c += " (default " + ins[j].Default + ")"
			}
			g.line(comment("\t", c+"."))
			g.p("%s %s", f.field, f.typ)
		}
		g.p("}")
		g.p("")
		g.line(comment("", "Apply sets req.Ranking to "+strconv.Quote(rp.Name)+" and adds the inputs that are set to "+
			"req.Inputs (as input.query(name)), keeping the other inputs there."))
		g.p("func (in %s) Apply(req *query.Request) {", typ)
		g.p("req.Ranking = %s", names[i])
		g.p("if req.Inputs == nil {")
		g.p("req.Inputs = map[string]any{}")
		g.p("}")
		for j, f := range fields {
			g.p("if %s {", f.set)
			g.p("req.Inputs[%s] = %s", strconv.Quote(ins[j].Name), f.value)
			g.p("}")
		}
		g.p("}")
	}
	return nil
}

// fileOf returns the file of the schema that declares rp.
func fileOf(g *generator, rp *schema.RankProfile, s *schema.Schema) string {
	for _, sch := range g.app.Schemas {
		for _, p := range sch.RankProfiles {
			if p == rp {
				return sch.File
			}
		}
	}
	return s.File
}
