package provider_test

import (
	"reflect"
	"testing"

	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

func TestResultParts(t *testing.T) {
	png := tool.Image("image/png", []byte("png"))
	svg := tool.Image("image/svg+xml", []byte("<svg/>"))
	wav := tool.Audio("audio/wav", []byte("RIFF"))
	link := tool.Link("file:///r.pdf", "report", "")
	for _, tt := range []struct {
		name  string
		parts []tool.Part
		want  []tool.Part
	}{
		{name: "none", parts: nil, want: nil},
		{name: "no image", parts: []tool.Part{tool.Text("a"), wav, svg}, want: nil},
		{name: "image alone", parts: []tool.Part{png}, want: []tool.Part{png}},
		{
			name:  "runs of text around images",
			parts: []tool.Part{tool.Text("a"), link, png, png, wav, svg, tool.Text("b")},
			want: []tool.Part{
				tool.Text("a\n[link report: file:///r.pdf]"),
				png, png,
				tool.Text("[audio audio/wav, 4 bytes]\n[image image/svg+xml, 6 bytes]\nb"),
			},
		},
		{name: "empty text", parts: []tool.Part{tool.Text(""), png, tool.Text("")}, want: []tool.Part{png}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := provider.ResultParts(tt.parts, provider.Images("image/png"))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ResultParts(%+v) = %+v, want %+v", tt.parts, got, tt.want)
			}
		})
	}
}
