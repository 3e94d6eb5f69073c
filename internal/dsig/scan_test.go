package dsig

import "testing"

const nested = `{ "a" : 1.50e1 , "b\"}c" : [ {"x":"}]\\"} , [] ] ,
	"d":{"e":[true,null,{"f":"\u0022"}]}, "g":"" }`

func TestObjectMembers(t *testing.T) {
	b := []byte(nested)
	root, ok := rootValue(b)
	if !ok || root.end != len(b) {
		t.Fatalf("root = %v %v", root, ok)
	}
	ms, ok := objectMembers(b, root)
	if !ok {
		t.Fatal("objectMembers failed")
	}
	want := [][2]string{
		{`a`, `1.50e1`},
		{`b\"}c`, `[ {"x":"}]\\"} , [] ]`},
		{`d`, `{"e":[true,null,{"f":"\u0022"}]}`},
		{`g`, `""`},
	}
	if len(ms) != len(want) {
		t.Fatalf("%d members, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		if string(m.key) != want[i][0] || string(b[m.val.start:m.val.end]) != want[i][1] {
			t.Errorf("member %d = %s: %s, want %s: %s", i, m.key, b[m.val.start:m.val.end], want[i][0], want[i][1])
		}
	}
	if !keyIs(ms[1].key, `b"}c`) {
		t.Error("escaped key not matched")
	}
	if s, ok := leafText(b, root, "b"); ok {
		t.Errorf("leafText on element without _ = %q", s)
	}
	f, ok := path(b, root, `b"}c`)
	if !ok || string(b[f.start:f.end]) != `{"x":"}]\\"}` {
		t.Errorf("path b[0] = %s", b[f.start:f.end])
	}
	if e, ok := arrayElement(b, ms[1].val, 1); !ok || string(b[e.start:e.end]) != `[]` {
		t.Errorf("element 1 = %v", e)
	}
	if _, ok := arrayElement(b, ms[1].val, 2); ok {
		t.Error("element 2 exists")
	}
	if s, ok := stringAt(b, ms[3].val); !ok || s != "" {
		t.Error("empty string")
	}
}

func TestMinify(t *testing.T) {
	in := []byte(" {\n\t\"a b\" : [ 1 , \"x \\\" y\" ] }\r\n")
	want := `{"a b":[1,"x \" y"]}`
	if got := appendMinified(nil, in); string(got) != want {
		t.Errorf("minify = %s", got)
	}
	if isMinified(in) || !isMinified([]byte(want)) {
		t.Error("isMinified wrong")
	}
}

func TestWithoutMembers(t *testing.T) {
	doc := []byte(`{"X":[{"A":1,"B":[2],"C":{"c":3},"D":"4"}]}`)
	obj, _ := arrayElement(doc, span{5, len(doc) - 1}, 0)
	ms, ok := objectMembers(doc, obj)
	if !ok || len(ms) != 4 {
		t.Fatal("members")
	}
	for drop, want := range map[[2]int]string{
		{0, 0}: `{"X":[{"B":[2],"C":{"c":3},"D":"4"}]}`,
		{1, 3}: `{"X":[{"A":1,"C":{"c":3}}]}`,
		{3, 3}: `{"X":[{"A":1,"B":[2],"C":{"c":3}}]}`,
		{0, 3}: `{"X":[{"B":[2],"C":{"c":3}}]}`,
	} {
		got := withoutMembers(doc, obj, ms, func(i int) bool { return i == drop[0] || i == drop[1] })
		if string(got) != want {
			t.Errorf("drop %v = %s, want %s", drop, got, want)
		}
	}
	all := withoutMembers(doc, obj, ms, func(int) bool { return true })
	if string(all) != `{"X":[{}]}` {
		t.Errorf("drop all = %s", all)
	}
}

func TestScannerRejectsMalformed(t *testing.T) {
	for _, s := range []string{`{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":"x`, `[1,2`, `{`, `"`, `}`, ``} {
		b := []byte(s)
		if ms, ok := objectMembers(b, span{0, len(b)}); ok {
			t.Errorf("%s: members %v", s, ms)
		}
	}
	for _, s := range []string{`{"a":"x`, `[1,2`, `{`, `"`, `]`, ``} {
		if e := skipValue([]byte(s), 0); e != -1 {
			t.Errorf("%s: skipValue = %d", s, e)
		}
	}
}
