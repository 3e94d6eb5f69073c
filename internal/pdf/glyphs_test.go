package pdf

import (
	"bytes"
	"fmt"
	"os/exec"
	"testing"
)

// inkOf renders s alone on a page, 40 pt, and returns the number of dark
// pixels pdftoppm draws for it.
func inkOf(t *testing.T, s string, bold bool) int {
	t.Helper()
	path, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm not found: install poppler-utils (apt-get install poppler-utils) to run this test")
	}
	c := &canvas{}
	c.addPage()
	c.text(10, 10, s, style{size: 40, bold: bold})
	var pdf bytes.Buffer
	if err := c.write(&pdf, meta{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-r", "40", "-gray", "-")
	cmd.Stdin = &pdf
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftoppm: %v", err)
	}
	// A binary PGM: "P5\n<w> <h>\n255\n" then one byte per pixel.
	var w, h, maxv int
	if _, err := fmt.Sscanf(string(out), "P5\n%d %d\n%d\n", &w, &h, &maxv); err != nil || w*h > len(out) {
		t.Fatalf("pdftoppm output: %v", err)
	}
	dark := 0
	for _, px := range out[len(out)-w*h:] {
		if px < 128 {
			dark++
		}
	}
	return dark
}

// TestGlyphsRender checks that the embedded subsets hold real outlines: a
// wide, dense character leaves much more ink than a thin one, which a
// missing-glyph box would not.
func TestGlyphsRender(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dense, thin string
		bold        bool
	}{
		{"latin", "MMMMMMMM", "iiiiiiii", false},
		{"latin bold", "MMMMMMMM", "iiiiiiii", true},
		{"malay accents", "ÉÉÉÉÉÉÉÉ", "íííííííí", false},
		{"han", "龍龍龍龍", "一一一一", false},
		{"han bold", "龍龍龍龍", "一一一一", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dense, thin := inkOf(t, tc.dense, tc.bold), inkOf(t, tc.thin, tc.bold)
			if thin == 0 || dense < 2*thin {
				t.Errorf("ink of %q: %d, of %q: %d: glyphs missing?", tc.dense, dense, tc.thin, thin)
			}
		})
	}
}
