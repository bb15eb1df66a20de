package mcpclient

import (
	"encoding/json"
	"errors"

	"github.com/hands-go/hands/dynamic"
)

// The SDK decodes a tool's schemas into maps, which forget the order in
// which the server listed the properties; a model reads that order. So the
// client reads the results of tools/list as the server wrote them too, and
// keeps each tool's schemas as sent; a tool that changed has them decoded
// once, from those bytes (sentSchema).

// sentSchemas are a tool's schemas as the server wrote them.
type sentSchemas struct {
	input, output json.RawMessage
}

// keepSent notes the schemas of a page of tools/list as sent. A result
// the SDK cannot read either is left to the SDK to refuse.
func (c *Client) keepSent(result json.RawMessage) {
	var page struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	c.sentMu.Lock()
	defer c.sentMu.Unlock()
	if c.sent == nil {
		c.sent = map[string]sentSchemas{}
	}
	for _, t := range page.Tools {
		c.sent[t.Name] = sentSchemas{input: t.InputSchema, output: t.OutputSchema}
	}
}

// sentSchema returns the schema the SDK decoded into decoded, parsed
// from the bytes the server sent (sent) when they are of it, and else
// from decoded encoded again: a late answer to an abandoned listing
// cannot make the client serve, or validate with, a schema other than
// the SDK's. The bytes are read once, into the form the client validates
// with, serves and lists (dynamic.Document), and compared with decoded
// there. Bytes beyond dynamic's bounds are refused as they are.
func sentSchema(sent json.RawMessage, decoded any) (*dynamic.Document, error) {
	if len(sent) > 0 {
		d, err := dynamic.Parse(sent)
		if _, ok := errors.AsType[*dynamic.BoundsError](err); ok {
			return nil, err
		}
		if err == nil && d.Equal(decoded) {
			return d, nil
		}
	}
	data, err := json.Marshal(decoded)
	if err != nil {
		return nil, err
	}
	return dynamic.Parse(data)
}
