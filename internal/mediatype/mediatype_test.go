package mediatype

import "testing"

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		contentType string
		kind        Kind
		text        bool
	}{
		{"", Unknown, false},
		{"text/html; charset=utf-8", HTML, true},
		{"application/xhtml+xml", HTML, true},
		{"text/plain", Text, true},
		{"application/json", Text, true},
		{"application/ld+json", Text, true},
		{"image/svg+xml", Binary, true},
		{"image/png", Binary, false},
		{"application/pdf", Binary, false},
		{"Text/Plain ; bad=", Text, true},
	} {
		media := Of(tt.contentType)
		if got := Classify(media); got != tt.kind {
			t.Errorf("Classify(Of(%q)) = %d, want %d", tt.contentType, got, tt.kind)
		}
		if got := IsText(media); got != tt.text {
			t.Errorf("IsText(Of(%q)) = %v, want %v", tt.contentType, got, tt.text)
		}
	}
}
