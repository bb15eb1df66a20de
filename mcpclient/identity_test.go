package mcpclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/catalogue"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
)

// TestSchemasServedAsSent lists tools through the client, from the real
// servers of the catalogue and from generated schemas (nested, in random
// order, with escapes and numbers as servers write them), and
// checks the identity: each schema is served byte for byte as the server
// sent it (the input schema's root typed as an object where it said
// nothing of its kind), and listing them again unchanged changes nothing.
func TestSchemasServedAsSent(t *testing.T) {
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]json.RawMessage{}
	for _, s := range servers {
		lists[s.Name] = s.Tools
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100 {
		in, out := genSchema(r, 0, true), genSchema(r, 0, true)
		lists["generated"] = append(lists["generated"], json.RawMessage(fmt.Sprintf(`{"name":"g%d","description":"Generated.","inputSchema":%s,"outputSchema":%s}`, i, in, out)))
	}
	for name, tools := range lists {
		t.Run(name, func(t *testing.T) {
			var page bytes.Buffer
			want := map[string][2]string{}
			for i, raw := range tools {
				// The in-memory transport sends a message as encoding/json
				// writes it, without the white space between tokens: the
				// bytes as sent are those.
				var compact bytes.Buffer
				if err := json.Compact(&compact, raw); err != nil {
					t.Fatal(err)
				}
				raw = compact.Bytes()
				if i > 0 {
					page.WriteByte(',')
				}
				page.Write(raw)
				var tl struct {
					Name                      string
					InputSchema, OutputSchema json.RawMessage
				}
				if err := json.Unmarshal(raw, &tl); err != nil {
					t.Fatal(err)
				}
				var root map[string]json.RawMessage
				json.Unmarshal(tl.InputSchema, &root)
				if _, typed := root["type"]; !typed {
					tl.InputSchema = append(json.RawMessage(`{"type":"object",`), tl.InputSchema[1:]...)
				}
				want[tl.Name] = [2]string{string(tl.InputSchema), string(tl.OutputSchema)}
			}
			ct, _ := rawToolServer(t, "["+page.String()+"]")
			c, err := mcpclient.Connect(t.Context(), ct, &mcpclient.Options{MaxToolBytes: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if refused := c.Refused(); len(refused) > 0 {
				t.Errorf("refused %v", refused)
			}
			check := func() {
				t.Helper()
				for _, tl := range c.Tools() {
					_, in, out := tl.(tool.SchemaDocumenter).SpecDocuments()
					if w := want[tl.Name()]; string(in) != w[0] || string(out) != w[1] {
						t.Errorf("tool %s: served\n%s\n%s\nwant, as sent,\n%s\n%s", tl.Name(), in, out, w[0], w[1])
					}
				}
			}
			check()
			before := map[string]uint64{}
			for _, tl := range c.Tools() {
				before[tl.Name()] = tl.(tool.SpecVersioner).SpecVersion()
			}
			ch, err := c.Refresh(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.Added)+len(ch.Updated)+len(ch.Removed) > 0 {
				t.Errorf("listing the same tools again changed %+v, want nothing", ch)
			}
			for _, tl := range c.Tools() {
				if v := tl.(tool.SpecVersioner).SpecVersion(); v != before[tl.Name()] {
					t.Errorf("tool %s: version %d after listing it again unchanged, want %d", tl.Name(), v, before[tl.Name()])
				}
			}
			check()
		})
	}
}

// genSchema returns a random schema as a server might write it: an
// object schema with properties in no particular order, nested, with
// white space, escapes and numbers written in several ways.
func genSchema(r *rand.Rand, depth int, root bool) string {
	ws := func() string { return []string{"", "", " ", "\n  ", "\t"}[r.IntN(5)] }
	var members []string
	if root || r.IntN(2) == 0 {
		members = append(members, `"type":`+ws()+`"object"`)
	}
	if r.IntN(2) == 0 {
		members = append(members, `"description":"`+[]string{`plain`, `caf\u00e9 \"quoted\" <b>&amp;`, `tab\tline\nünïcödé 😀`}[r.IntN(3)]+`"`)
	}
	if depth < 4 {
		var props []string
		for range r.IntN(5) {
			name := fmt.Sprintf("%c%d", 'z'-rune(r.IntN(26)), r.IntN(100))
			var sub string
			switch r.IntN(4) {
			case 0:
				sub = genSchema(r, depth+1, false)
			case 1:
				sub = `{"type":"number","minimum":` + []string{"1", "1.0", "1e2", "-0.5", "100000000000000000000"}[r.IntN(5)] + `}`
			case 2:
				sub = `{}`
			default:
				sub = `{"type":"array","items":` + genSchema(r, depth+1, false) + `}`
			}
			props = append(props, ws()+`"`+name+`":`+ws()+sub)
		}
		members = append(members, `"properties":{`+strings.Join(props, ",")+`}`)
	}
	if r.IntN(3) == 0 {
		members = append(members, `"x-vendor":{"kept":[1,true,null]}`)
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + ws() + strings.Join(members, ","+ws()) + ws() + "}"
}
