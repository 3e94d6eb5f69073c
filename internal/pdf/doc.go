// Package pdf renders the visual e-invoice: an A4 PDF of a document that a
// supplier can hand to its customer (DECISIONS section 10). It shows the
// kind of document as its title, the supplier and the buyer, the document
// details, the lines, the tax summary, the totals, the payment and delivery
// details and, once the tax authority has validated the document, its uuid,
// the time of validation and the QR code of the validation link with the
// link printed under it. A document without a validation carries a
// "NOT YET VALIDATED" mark as real text, on its first page and in the
// footer of every page.
//
// Render lays the document out on a canvas of drawing operations first
// (layout.go), then writes the PDF with codeberg.org/go-pdf/fpdf
// (canvas.go). Layout breaks pages itself: a line never splits across pages
// unless it is taller than a page, the line table's header row repeats on
// every page it continues on, and every page ends with "Page X of Y".
//
// # Fonts
//
// Latin text (Malay and English included) is set in DejaVu Sans, regular and
// bold; Han characters, and the other CJK characters DejaVu lacks (kana,
// Hangul, full-width punctuation), in Droid Sans Fallback. Both come from
// Debian's font packages and are embedded in the binary (fonts/, with their
// licences). The font is chosen per run of text: a Han character goes in
// Droid Sans Fallback, everything else in DejaVu Sans when it has the glyph.
// Droid Sans Fallback has no bold face: bold Han text is stroked.
//
// Each font is parsed once per process, the first time a document needs it
// (truetype.go): a document without CJK text never loads the CJK font. Per
// document, the glyphs it prints are cut from each font it uses into simple
// TrueType fonts of up to 224 characters (embed.go), whose encodings name
// every character by its Unicode value (uniXXXX), so text extractors and
// copy-paste read the original text. This keeps the PDFs small (about 45 KB
// for a one-page invoice with a QR code) and the time per PDF low: fpdf's own
// Unicode font path costs milliseconds per font and document, whatever the
// font's size.
//
// # Limitations
//
//   - No text shaping and no bidirectional layout: scripts that need them
//     (Tamil and the other Indic scripts, Arabic, Thai) are drawn one glyph
//     per character, left to right, which is wrong for them; characters that
//     no embedded font has (Tamil among them) show as empty boxes, though a
//     PDF text extractor still reads them.
//   - Only the Basic Multilingual Plane: characters above U+FFFF (rare Han
//     extensions, emoji) print as U+FFFD, the replacement character.
//   - No kerning and no hyphenation; long words without a break opportunity
//     are cut where the column ends.
package pdf
