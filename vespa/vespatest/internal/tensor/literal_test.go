package tensor

import "testing"

// The answers of Vespa's container (the JDisc harness of the integration
// suite, RankProfileInputProperties over vespajlib TensorParser) to values of
// an input declared tensor<float>(x[4]).
func TestType_CheckLiteral(t *testing.T) {
	x4, err := ParseType("tensor<float>(x[4])")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, err string }{
		{"[1,1,1,1]", ""},
		{"[1,2]", ""}, // fewer values than cells: the rest are 0
		{"[[1,2],[3,4]]", ""},
		{"{{x:0}:1,{x:3}:2}", ""},
		{"tensor<float>(x[4]):[1,2,3,4]", ""},
		{"embed(e5, \"text\")", ""},
		{"3f8000003f8000003f8000003f800000", ""},
		{"[1,2,3,4,5]", "At value position 8: Expected a ']' but got ','"},
		{"[1,x,3,4]", "At value position 3: 'x' is not a valid float"},
		{"{{y:0}:1}", "tensor<float>(x[4]) does not contain dimension 'y'"},
		{"{{x:4}:1}", "cell address (4) is not within the bounds of tensor<float>(x[4])"},
		{"hello", "Expected a number, hex string, or a string starting by {, [ or tensor(...)"},
		{"{a:1}", "No suitable dimension in tensor<float>(x[4]) for parsing a tensor on the mixed form: Should have one mapped dimension"},
		{"tensor(y[4]):[1,2,3,4]", "Got tensor with type string 'tensor(y[4])', but was passed type tensor<float>(x[4])"},
		{"5", "Expected 32 hex digits, but got 1"},
	} {
		got := ""
		if err := x4.CheckLiteral(c.in); err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("CheckLiteral(%q) = %q, want %q", c.in, got, c.err)
		}
	}
	mapped, _ := ParseType("tensor(cat{})")
	if err := mapped.CheckLiteral("{a:1,b:2}"); err != nil {
		t.Errorf("mapped short form: %v", err)
	}
}

func FuzzType_CheckLiteral(f *testing.F) {
	for _, s := range []string{"[1,2]", "{{x:0}:1}", "tensor<float>(x[4]):[1]", "{a:1}", "ab12"} {
		f.Add(s)
	}
	x4, _ := ParseType("tensor<float>(x[4])")
	mixed, _ := ParseType("tensor(cat{},x[2])")
	f.Fuzz(func(t *testing.T, s string) {
		_ = x4.CheckLiteral(s)
		_ = mixed.CheckLiteral(s)
	})
}
