// Command conformanceclient is the client that the official MCP
// conformance suite (@modelcontextprotocol/conformance) drives, one run
// per client scenario: the suite starts it with the scenario's server URL
// as its argument, the scenario's name in $MCP_CONFORMANCE_SCENARIO and,
// for scenarios with pre-arranged credentials, a JSON object in
// $MCP_CONFORMANCE_CONTEXT. It connects with mcpclient, OAuth included,
// calls the tools the server lists through a hands registry and exits 0
// when all of that worked. The suite judges the exchange; mcpclient's
// TestConformance runs it.
package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// clientMetadataURL is the client ID metadata document the suite's
// authorization servers expect a client to name (auth/basic-cimd).
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient SERVER-URL")
		os.Exit(2)
	}
	if err := run(ctx, os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceclient:", err)
		os.Exit(1)
	}
}

// scenarioContext is $MCP_CONFORMANCE_CONTEXT: the credentials a scenario
// arranged in advance.
type scenarioContext struct {
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	PrivateKeyPEM string `json:"private_key_pem"`
	// For enterprise-managed authorization (SEP-990):
	IdPClientID string `json:"idp_client_id"`
	IdPIDToken  string `json:"idp_id_token"`
	IdPTokenURL string `json:"idp_token_endpoint"`
	// The calls a scenario asks for, with their arguments (SEP-2243's
	// http-custom-headers).
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

func run(ctx context.Context, server, scenario, contextJSON string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var sc scenarioContext
	if contextJSON != "" {
		if err := json.Unmarshal([]byte(contextJSON), &sc); err != nil {
			return fmt.Errorf("$MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	var issuer string
	if sc.ClientID != "" {
		issuer = issuerOf(ctx, server)
	}
	oauth := &mcpclient.OAuth{
		ClientID:          sc.ClientID,
		Issuer:            issuer,
		ClientSecret:      sc.ClientSecret,
		ClientMetadataURL: clientMetadataURL,
		Machine:           strings.HasPrefix(scenario, "auth/client-credentials-"),
		Browser:           follow,
		Store:             mcpclient.NoStore,
	}
	if sc.PrivateKeyPEM != "" {
		key, err := parseKey(sc.PrivateKeyPEM)
		if err != nil {
			return err
		}
		oauth.ClientKey = key
	}
	if sc.IdPIDToken != "" {
		oauth.Enterprise = &mcpclient.Enterprise{
			IdPTokenURL: sc.IdPTokenURL,
			IdPClientID: sc.IdPClientID,
			IDToken:     func(context.Context) (string, error) { return sc.IdPIDToken, nil },
		}
	}
	transport, err := mcpclient.HTTPWith(server, &mcpclient.HTTPOptions{OAuth: oauth})
	if err != nil {
		return err
	}
	c, err := mcpclient.Connect(ctx, transport, &mcpclient.Options{Elicit: acceptDefaults})
	if err != nil {
		return err
	}
	defer c.Close()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "server", Tools: c.Tools()})
	if err != nil {
		return err
	}
	var errs []error
	for _, call := range calls(ctx, reg, scenario, sc) {
		res := tool.Run(ctx, reg, call)
		fmt.Printf("%s: %s\n", call.Name, res.Content)
		if res.IsError {
			errs = append(errs, fmt.Errorf("%s: %s", call.Name, res.Content))
		}
	}
	return errors.Join(errs...)
}

// calls returns the calls a scenario expects: those its context names;
// for json-schema-2020-12-preservation, the echo of the focal tool's input
// schema as listed; else every tool listed, with the arguments the
// scenario's tools take.
func calls(ctx context.Context, reg *tool.Registry, scenario string, sc scenarioContext) []tool.Call {
	var out []tool.Call
	for _, c := range sc.ToolCalls {
		out = append(out, tool.Call{Name: c.Name, Args: c.Arguments})
	}
	if out != nil {
		return out
	}
	if scenario == "json-schema-2020-12-preservation" {
		for _, t := range reg.Tools() {
			if t.Spec().Name != "json_schema_2020_12_tool" {
				continue
			}
			var schema json.RawMessage
			if d, ok := t.(tool.SchemaDocumenter); ok {
				_, schema, _ = d.SpecDocuments()
			}
			if schema == nil {
				schema, _ = json.Marshal(t.Spec().InputSchema)
			}
			args, _ := json.Marshal(map[string]json.RawMessage{"schema": schema})
			return []tool.Call{{Name: "json_schema_echo", Args: args}}
		}
		return nil
	}
	for _, name := range reg.EnabledNames(ctx) {
		args := json.RawMessage(`{}`)
		switch {
		case name == "add_numbers":
			args = json.RawMessage(`{"a":5,"b":3}`)
		case scenario == "http-invalid-tool-headers":
			args = json.RawMessage(`{"region":"us-west1"}`)
		}
		out = append(out, tool.Call{Name: name, Args: args})
	}
	return out
}

// parseKey reads a PKCS #8 private key in PEM.
func parseKey(data string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(data))
	if block == nil {
		return nil, errors.New("private_key_pem holds no PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("private_key_pem: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private_key_pem holds a %T, which cannot sign", key)
	}
	return signer, nil
}

// follow stands in for the person at the browser: the suite's
// authorization servers approve at once, so following the authorization
// URL's redirects reaches the loopback redirect.
func follow(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the authorization page answered %s", resp.Status)
	}
	return nil
}

// acceptDefaults accepts a form elicitation with the defaults its schema
// gives (SEP-1034), and declines any other.
func acceptDefaults(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Params.Mode == "url" {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	var schema struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	data, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		return nil, err
	}
	content := map[string]any{}
	for name, p := range schema.Properties {
		if p.Default != nil {
			content[name] = p.Default
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// issuerOf returns the issuer of the authorization server that the server
// under test names, trusted on first use: the suite registers the client
// of its context with that server, and names no issuer. It follows the
// server's challenge to its protected-resource metadata, or the
// well-known path, to the authorization server's metadata; a server of
// the 2025-03-26 protocol publishes its metadata at the root of its
// origin. It returns "" when none is found, which the client then
// refuses.
func issuerOf(ctx context.Context, server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return ""
	}
	origin := u.Scheme + "://" + u.Host
	var candidates []string
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, server, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"ping"}`))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate")); err == nil {
				for _, c := range challenges {
					if m := c.Params["resource_metadata"]; m != "" {
						candidates = append(candidates, m)
					}
				}
			}
		}
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+u.Path, origin+"/.well-known/oauth-protected-resource")
	for _, m := range candidates {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, m, server, http.DefaultClient)
		if err != nil || prm == nil || len(prm.AuthorizationServers) == 0 {
			continue
		}
		if asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], http.DefaultClient); err == nil && asm != nil {
			return asm.Issuer
		}
	}
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if resp, err := http.Get(origin + "/.well-known/oauth-authorization-server"); err == nil {
		defer resp.Body.Close()
		if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc) == nil {
			return doc.Issuer
		}
	}
	return ""
}
