package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseJSList(t *testing.T) {
	src := `export const OTHER = [{ code: "no" }];
export const REC_X = [
    { code: "10", name: "group" },
    {
        code: "X1A",
        name: "Drum, steel",
        description: "A drum; \"quoted\" \u00e9 \xe9 it\'s",
    },
    { 'code': 'A\u00A0B', "name": "caf\u00e9 \ud83d\ude00" }
];
//# sourceMappingURL=index.js.map
`
	got, err := parseJSList(src, "REC_X")
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"code": "10", "name": "group"},
		{"code": "X1A", "name": "Drum, steel", "description": "A drum; \"quoted\" é é it's"},
		{"code": "A\u00a0B", "name": "café 😀"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d objects, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("object %d key %q = %q, want %q", i, k, got[i][k], v)
			}
		}
		if len(got[i]) != len(want[i]) {
			t.Errorf("object %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestParseJSListErrors(t *testing.T) {
	tests := []struct{ name, src string }{
		{"missing", `export const OTHER = [];`},
		{"number value", `export const L = [{ code: 1 }];`},
		{"unterminated", `export const L = [{ code: "1 }];`},
		{"bad escape", `export const L = [{ code: "\q" }];`},
		{"missing comma", `export const L = [{ code: "1" } { code: "2" }];`},
		{"duplicate key", `export const L = [{ code: "1", code: "2" }];`},
		{"unclosed", `export const L = [{ code: "1" }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := parseJSList(tt.src, "L"); err == nil {
				t.Errorf("parseJSList(%q) = %q, want an error", tt.src, got)
			}
		})
	}
}

func TestApply(t *testing.T) {
	src := []entry{
		{"B", "bee\u00a0 two"},
		{"A", "ay"},
		{"R", "removed"},
	}
	d := diff{
		Add:    []addition{{"C", "Sea", "why"}},
		Remove: []removal{{"R", "why"}},
		Rename: []rename{{"A", "Ay", "why"}},
	}
	got, err := apply(src, d)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{{"A", "Ay"}, {"B", "bee two"}, {"C", "Sea"}}
	if !slices.Equal(got, want) {
		t.Errorf("apply = %q, want %q", got, want)
	}
}

func TestApplyStaleDifferences(t *testing.T) {
	src := []entry{{"A", "ay"}, {"B", "bee"}}
	tests := []struct {
		name string
		src  []entry
		d    diff
		want string
	}{
		{"addition now in source", src, diff{Add: []addition{{"A", "Ay", ""}}}, "addition A"},
		{"removal gone", src, diff{Remove: []removal{{"Z", ""}}}, "removal Z"},
		{"rename gone", src, diff{Rename: []rename{{"Z", "Zed", ""}}}, "rename Z"},
		{"rename no-op", src, diff{Rename: []rename{{"A", "ay", ""}}}, "rename A"},
		{"duplicate in source", append(slices.Clone(src), entry{"A", "again"}), diff{}, "twice"},
		{"empty name", []entry{{"A", " "}}, diff{}, "no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := apply(tt.src, tt.d)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("apply error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
