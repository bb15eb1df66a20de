package mcpclient

import (
	"net/url"
	"testing"
)

// TestSameOrigin compares origins as RFC 6454 does, strictly: what a
// hostile authorization server's metadata might spell to pass for the MCP
// server's origin is another origin.
func TestSameOrigin(t *testing.T) {
	const server = "https://mcp.example/mcp"
	for _, tt := range []struct {
		named string
		same  bool
	}{
		{"https://mcp.example/oauth", true},
		{"https://MCP.Example/oauth", true},
		{"HTTPS://mcp.example/oauth", true},
		{"https://mcp.example:443/oauth", true},
		{"https://mcp.example:8443/oauth", false},
		{"https://mcp.example:0443/oauth", false},
		{"http://mcp.example/oauth", false},
		{"http://mcp.example:443/oauth", false},
		{"https://mcp.example./oauth", false},
		{"https://mcp.example.evil/oauth", false},
		{"https://evil.example/mcp.example", false},
		{"https://mcp.example@evil.example/oauth", false},
		{"https://evil.example@mcp.example/oauth", false},
		{"https://user:pass@mcp.example/oauth", false},
		{"https://xn--mcp-5qa.example/oauth", false},
		{"https://mcpé.example/oauth", false},
		{"//mcp.example/oauth", false},
		{"/oauth", false},
		{"https:mcp.example", false},
	} {
		named, err := url.Parse(tt.named)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := url.Parse(server)
		if got := sameOrigin(named, s); got != tt.same {
			t.Errorf("sameOrigin(%q, %q) = %v, want %v", tt.named, server, got, tt.same)
		}
	}
	local, _ := url.Parse("http://127.0.0.1:8080/mcp")
	for named, same := range map[string]bool{
		"http://127.0.0.1:8080/oauth":  true,
		"http://localhost:8080/oauth":  false,
		"https://127.0.0.1:8080/oauth": false,
		"http://127.0.0.1/oauth":       false,
	} {
		u, _ := url.Parse(named)
		if got := sameOrigin(u, local); got != same {
			t.Errorf("sameOrigin(%q, %q) = %v, want %v", named, local, got, same)
		}
	}
}
