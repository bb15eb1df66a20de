package mcpclient

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// The SDK decodes a tool's schemas into maps, which forget the order in
// which the server listed the properties; a model reads that order. So the
// client reads the results of tools/list as the server wrote them too, and
// keeps each tool's schemas as sent.

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

// sentSchema returns doc as the server sent it, when the bytes kept say
// the same as decoded, which the SDK decoded into decoded; else doc as
// marshalled from decoded. A late answer to an abandoned listing cannot
// make the client serve a schema other than the one it validates with.
func sentSchema(sent json.RawMessage, decoded any) (json.RawMessage, error) {
	if len(sent) > 0 {
		var v any
		if json.Unmarshal(sent, &v) == nil && reflect.DeepEqual(v, decoded) {
			return sent, nil
		}
	}
	return json.Marshal(decoded)
}

// kindKeywords are the keywords of a root schema by which something other
// than its "type" can say what kind of value it describes: another schema
// ($ref and its dynamic kinds, the combinators, if) or the values it
// allows (enum, const). A root with none of them and no "type" constrains
// only an object's members, if anything.
var kindKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not", "if", "enum", "const"}

// typedObject returns the input schema doc with "type":"object" added at
// the front of its root when the root is a JSON object with no "type" and
// none of kindKeywords, such as {"$schema": "..."} alone; else doc as it
// is. MCP requires "type": "object" at the root of an input schema, and
// its clients check it, refusing a whole listing for one tool without;
// the arguments of a call are always an object, so the addition narrows
// nothing a call can do. The bytes are otherwise doc's, for the schema
// to be listed as sent (sentSchema).
func typedObject(doc json.RawMessage) json.RawMessage {
	var root map[string]json.RawMessage
	if json.Unmarshal(doc, &root) != nil || root == nil {
		return doc
	}
	if _, ok := root["type"]; ok {
		return doc
	}
	for _, k := range kindKeywords {
		if _, ok := root[k]; ok {
			return doc
		}
	}
	// doc decoded as an object: its first byte but white space is its
	// opening brace.
	open := bytes.IndexByte(doc, '{') + 1
	typed := make(json.RawMessage, 0, len(doc)+len(`"type":"object",`))
	typed = append(typed, doc[:open]...)
	typed = append(typed, `"type":"object"`...)
	if bytes.TrimLeft(doc[open:], " \t\r\n")[0] != '}' {
		typed = append(typed, ',')
	}
	return append(typed, doc[open:]...)
}
