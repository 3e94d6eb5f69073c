package pdf

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":            "plain",
		"a\tb\x00c\u0085d": "a b c d",
		"line\r\nbreak":    "line break",
		"bad \xff byte":    "bad \uFFFD byte",
		"emoji \U0001F600": "emoji \uFFFD",
		"腾讯":               "腾讯",
	} {
		if got := clean(in, false); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clean("a\r\nb\nc", true); got != "a\nb\nc" {
		t.Errorf("clean kept %q", got)
	}
}

func TestRunsByScript(t *testing.T) {
	rs, err := runs("Syarikat 腾讯科技 Sdn. Bhd.（马）", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, fontFiles[r.font].family+":"+r.text)
	}
	want := []string{"dejavu:Syarikat ", "droid-fallback:腾讯科技", "dejavu: Sdn. Bhd.", "droid-fallback:（马）"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("runs = %q, want %q", got, want)
	}
	rs, _ = runs("Jaya 腾", true)
	if rs[0].font != fontBold || rs[1].font != fontHan || !rs[1].fake {
		t.Errorf("bold runs = %+v", rs)
	}
}

func TestWrap(t *testing.T) {
	st := body
	for _, tc := range []struct {
		name string
		in   string
		w    float64
	}{
		{"words", "Syarikat Jaya Sdn. Bhd. supplies cloud hosting to many customers in Kuala Lumpur", 40},
		{"long word", strings.Repeat("x", 200), 30},
		{"han", strings.Repeat("腾讯科技有限公司", 10), 35},
		{"mixed", "Invoice for 腾讯科技有限公司 (Malaysia) Sdn. Bhd. https://example.com/a/very/long/path/that/breaks", 30},
		{"newlines", "Line 1\nLine 2\n\nLine 4", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := wrap(tc.in, tc.w, st)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if w, _ := width(l, st); w > tc.w+1e-6 {
					t.Errorf("line %q is %.2f mm wide, more than %.2f", l, w, tc.w)
				}
			}
			if squash(strings.Join(lines, "")) != squash(tc.in) {
				t.Errorf("wrapping lost text: %q", lines)
			}
		})
	}
	lines, _ := wrap("Line 1\nLine 2\n\nLine 4", 100, st)
	if len(lines) != 4 || lines[2] != "" {
		t.Errorf("newlines: %q", lines)
	}
	lines, _ = wrap("aaa bbb ccc", 1000, st)
	if len(lines) != 1 {
		t.Errorf("short text wrapped: %q", lines)
	}
	// Breaks fall at spaces when there are some.
	lines, _ = wrap("alpha beta gamma delta epsilon", 20, st)
	for _, l := range lines {
		for _, word := range strings.Fields(l) {
			if !strings.Contains("alpha beta gamma delta epsilon", word) {
				t.Errorf("a word was cut: %q in %q", word, lines)
			}
		}
	}
}
