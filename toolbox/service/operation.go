package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/schema"
	"golang.org/x/net/http/httpguts"
)

// opIDRE is what an operation ID must look like to name an operation.
var opIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// The groups of an operation's arguments, as the model gives them.
const (
	groupPath   = "path"
	groupQuery  = "query"
	groupHeader = "header"
	groupCookie = "cookie"
	groupBody   = "body"
)

// An operation is one method of one path.
type operation struct {
	svc     *service
	id      string // the operation ID, or "" if it has none (or one that cannot name it)
	method  string
	path    string // the template, as in /users/{id}
	summary string
	desc    string
	params  []*openapi3.Parameter // those sent: path, query, header, cookie
	body    *openapi3.RequestBody // nil: none
	media   string                // the body's media type: JSON or a form; "" if none
	// unsupported says why the operation cannot be called, such as a body
	// of a media type call_service does not send; "" if it can be.
	unsupported string
	responses   *openapi3.Responses

	once  sync.Once
	input []byte             // the JSON Schema of the arguments
	valid *dynamic.Validator // compiled from input
	err   error              // why the schema did not build or compile

	respMu sync.Mutex
	resp   map[string]*responseCheck // by response key ("200", "2XX", "default")
}

// A responseCheck is the compiled schema of one response's JSON body.
type responseCheck struct {
	v   *dynamic.Validator // nil: no schema
	err error              // why it did not compile
}

func newOperation(s *service, method, path string, item *openapi3.PathItem, op *openapi3.Operation) *operation {
	o := &operation{svc: s, id: op.OperationID, method: method, path: path, summary: strings.TrimSpace(op.Summary), desc: strings.TrimSpace(op.Description), responses: op.Responses}
	if reason := checkTemplate(path); reason != "" {
		o.unsupported = reason
	}
	// The operation's parameters override the path item's of the same
	// name and place.
	seen := map[string]bool{}
	for _, list := range []openapi3.Parameters{op.Parameters, item.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			p := pr.Value
			key := p.In + "\x00" + p.Name
			if p.In == groupHeader {
				key = p.In + "\x00" + http.CanonicalHeaderKey(p.Name)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			switch p.In {
			case groupHeader:
				if !httpguts.ValidHeaderFieldName(p.Name) || reservedHeader(p.Name) || s.headers.Get(p.Name) != "" {
					continue // the client's or the operator's to set
				}
			case groupCookie:
				if !validCookieName(p.Name) {
					continue
				}
			case groupPath, groupQuery:
			default:
				continue
			}
			o.params = append(o.params, p)
		}
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		o.body = op.RequestBody.Value
		o.media = bodyMedia(o.body.Content)
		if o.media == "" && o.unsupported == "" {
			types := make([]string, 0, len(o.body.Content))
			for t := range o.body.Content {
				types = append(types, t)
			}
			slices.Sort(types)
			o.unsupported = fmt.Sprintf("its request body is %s, and call_service sends only JSON and form (application/x-www-form-urlencoded) bodies", strings.Join(types, ", "))
		}
	}
	declared := map[string]bool{}
	for _, p := range o.params {
		if p.In == groupPath {
			declared[p.Name] = true
			if !strings.Contains(path, "{"+p.Name+"}") && o.unsupported == "" {
				o.unsupported = fmt.Sprintf("its path parameter %q is not in its path %s", p.Name, path)
			}
		}
	}
	for _, m := range templateParamRE.FindAllString(path, -1) {
		if name := m[1 : len(m)-1]; !declared[name] && o.unsupported == "" {
			o.unsupported = fmt.Sprintf("its path %s has {%s}, which no path parameter declares", path, name)
		}
	}
	return o
}

// checkTemplate says why a path template from the document cannot be a
// path under the base URL, or "".
func checkTemplate(path string) string {
	if !strings.HasPrefix(path, "/") {
		return "its path does not start with /"
	}
	bare := templateParamRE.ReplaceAllString(path, "x")
	if strings.ContainsAny(bare, "?#\\%{} \t\r\n") || strings.Contains(bare, "//") {
		return "its path holds characters that do not belong in a path template"
	}
	for seg := range strings.SplitSeq(bare, "/") {
		if seg == "." || seg == ".." {
			return "its path has a . or .. segment"
		}
	}
	return ""
}

var templateParamRE = regexp.MustCompile(`\{[^{}/]+\}`)

// bodyMedia picks the media type call_service sends a body as: JSON
// first, then a form.
func bodyMedia(content openapi3.Content) string {
	var form string
	for t := range content {
		mt, _, err := mime.ParseMediaType(t)
		if err != nil {
			continue
		}
		switch {
		case mt == "application/json" || strings.HasSuffix(mt, "+json"):
			return t
		case mt == "application/x-www-form-urlencoded":
			form = t
		}
	}
	return form
}

func isJSONMedia(t string) bool {
	mt, _, err := mime.ParseMediaType(t)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// key names the operation as call_service takes it: its ID, else its
// method and path.
func (o *operation) key() string {
	if o.id != "" {
		return o.id
	}
	return o.method + " " + o.path
}

func (o *operation) readOnly() bool { return o.method == "GET" || o.method == "HEAD" }

// schema returns the JSON Schema of the operation's arguments and its
// validator, built on first use:
//
//	{"path": {…}, "query": {…}, "header": {…}, "cookie": {…}, "body": …}
//
// each group an object of the parameters in that place, and body the
// request body's schema.
func (o *operation) schema() ([]byte, *dynamic.Validator, error) {
	o.once.Do(func() {
		c := newConverter()
		props := map[string]any{}
		var required []string
		groups := map[string]map[string]any{}
		groupRequired := map[string][]string{}
		for _, p := range o.params {
			g := groups[p.In]
			if g == nil {
				g = map[string]any{}
				groups[p.In] = g
			}
			var s any = map[string]any{"type": "string"}
			if p.Schema != nil {
				s = c.ref(p.Schema, 0)
			} else if mt := bodyMedia(p.Content); mt != "" && p.Content[mt].Schema != nil {
				s = c.ref(p.Content[mt].Schema, 0)
			}
			if p.Description != "" {
				s = describe(s, p.Description)
			}
			g[p.Name] = s
			if p.Required || p.In == groupPath {
				groupRequired[p.In] = append(groupRequired[p.In], p.Name)
			}
		}
		for _, in := range []string{groupPath, groupQuery, groupHeader, groupCookie} {
			g, ok := groups[in]
			if !ok {
				continue
			}
			obj := map[string]any{"type": "object", "properties": g, "additionalProperties": false}
			if r := groupRequired[in]; len(r) > 0 {
				obj["required"] = r
				required = append(required, in)
			}
			props[in] = obj
		}
		if o.body != nil && o.media != "" {
			var s any = true
			if mt := o.body.Content[o.media]; mt != nil && mt.Schema != nil {
				s = c.ref(mt.Schema, 0)
			}
			if o.body.Description != "" {
				s = describe(s, o.body.Description)
			}
			props[groupBody] = s
			if o.body.Required {
				required = append(required, groupBody)
			}
		}
		doc := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			doc["required"] = required
		}
		defs, err := c.finish()
		if err != nil {
			o.err = err
			return
		}
		if len(defs) > 0 {
			doc["$defs"] = defs
		}
		if o.input, o.err = json.Marshal(doc); o.err != nil {
			return
		}
		if o.valid, err = dynamic.NewValidator(o.input); err != nil {
			o.err = fmt.Errorf("%w: the operation's schema does not compile: %w", ErrDocument, err)
		}
	})
	return o.input, o.valid, o.err
}

// describe adds a description to a schema that has none; a $ref keeps its
// own beside it (2020-12 allows siblings of $ref).
func describe(s any, d string) any {
	m, ok := s.(map[string]any)
	if !ok {
		return map[string]any{"description": d}
	}
	if _, has := m["description"]; has {
		return s
	}
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	c["description"] = d
	return c
}

// responseSchema returns the check of the response to status: the
// document's schema for that status, its range (2XX) or default, for a
// JSON body.
func (o *operation) responseSchema(status int) *responseCheck {
	if o.responses == nil {
		return nil
	}
	code := fmt.Sprint(status)
	var key string
	var r *openapi3.ResponseRef
	for _, k := range []string{code, code[:1] + "XX", "default"} {
		if r = o.responses.Value(k); r != nil && r.Value != nil {
			key = k
			break
		}
	}
	if key == "" {
		return nil
	}
	o.respMu.Lock()
	defer o.respMu.Unlock()
	if rc, ok := o.resp[key]; ok {
		return rc
	}
	rc := &responseCheck{}
	var s *openapi3.SchemaRef
	for t, mt := range r.Value.Content {
		if isJSONMedia(t) && mt != nil && mt.Schema != nil {
			s = mt.Schema
			break
		}
	}
	if s != nil {
		c := newConverter()
		root := c.ref(s, 0)
		defs, err := c.finish()
		if err == nil {
			doc := map[string]any{"allOf": []any{root}}
			if len(defs) > 0 {
				doc["$defs"] = defs
			}
			var data []byte
			if data, err = json.Marshal(doc); err == nil {
				rc.v, err = dynamic.NewValidator(data)
			}
		}
		rc.err = err
	}
	if o.resp == nil {
		o.resp = map[string]*responseCheck{}
	}
	o.resp[key] = rc
	return rc
}

// arguments is what the model gives an operation, grouped.
type arguments struct {
	Path   map[string]any  `json:"path"`
	Query  map[string]any  `json:"query"`
	Header map[string]any  `json:"header"`
	Cookie map[string]any  `json:"cookie"`
	Body   json.RawMessage `json:"body"`
}

// request builds the request of a call: the URL under the base, the
// parameters serialized as the document says, the body. Its issues are
// problems with the arguments, each at its path under /arguments.
func (o *operation) request(args []byte) (method, rawURL string, header http.Header, body []byte, issues []schema.Issue) {
	var a arguments
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return "", "", nil, nil, []schema.Issue{{Path: "/arguments", Keyword: schema.KeywordSyntax, Message: "must be a JSON object: " + err.Error()}}
	}
	header = http.Header{}
	path := o.path
	query := url.Values{}
	var cookies []string
	for _, p := range o.params {
		var v any
		var ok bool
		switch p.In {
		case groupPath:
			v, ok = a.Path[p.Name]
		case groupQuery:
			v, ok = a.Query[p.Name]
		case groupHeader:
			v, ok = a.Header[p.Name]
		case groupCookie:
			v, ok = a.Cookie[p.Name]
		}
		if !ok || v == nil {
			continue
		}
		at := "/arguments/" + p.In + "/" + escapePointer(p.Name)
		switch p.In {
		case groupPath:
			s, reason := pathValue(p, v)
			if reason != "" {
				issues = append(issues, schema.Issue{Path: at, Keyword: "validate", Message: reason})
				continue
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", s)
		case groupQuery:
			addQuery(query, p, v)
		case groupHeader:
			s := joinValues(v, p.Explode != nil && *p.Explode, ",")
			if !httpguts.ValidHeaderFieldValue(s) || strings.ContainsAny(s, "\r\n\x00") {
				issues = append(issues, schema.Issue{Path: at, Keyword: "validate", Message: "must not hold line breaks or other control characters: a header's value is one line"})
				continue
			}
			header.Set(p.Name, s)
		case groupCookie:
			s := joinValues(v, false, ",")
			c := &http.Cookie{Name: p.Name, Value: s}
			if c.Valid() != nil || strings.ContainsAny(s, ";,\" \\") {
				issues = append(issues, schema.Issue{Path: at, Keyword: "validate", Message: "must be a cookie value: no spaces, commas, semicolons, quotes, backslashes or control characters"})
				continue
			}
			cookies = append(cookies, c.String())
		}
	}
	if len(cookies) > 0 {
		header.Set("Cookie", strings.Join(cookies, "; "))
	}
	if len(a.Body) > 0 && o.media != "" && string(a.Body) != "null" {
		header.Set("Content-Type", o.media)
		if isJSONMedia(o.media) {
			body = a.Body
		} else {
			form, reason := formBody(a.Body)
			if reason != "" {
				issues = append(issues, schema.Issue{Path: "/arguments/body", Keyword: "validate", Message: reason})
			}
			body = []byte(form)
		}
	}
	if len(issues) > 0 {
		return "", "", nil, nil, issues
	}
	rawURL = o.svc.base.Scheme + "://" + o.svc.base.Host + o.svc.base.EscapedPath() + path
	if len(query) > 0 {
		rawURL += "?" + query.Encode()
	}
	return o.method, rawURL, header, body, nil
}

// pathValue serializes a path parameter (style simple, label or matrix)
// with every value percent-encoded, so that no value adds a segment, a
// query or another host; a value that is empty, "." or ".." is refused.
func pathValue(p *openapi3.Parameter, v any) (string, string) {
	explode := p.Explode != nil && *p.Explode
	var parts []string
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			parts = append(parts, scalar(e))
		}
	case map[string]any:
		keys := sortedKeys(v)
		for _, k := range keys {
			if explode {
				parts = append(parts, k+"="+scalar(v[k]))
			} else {
				parts = append(parts, k, scalar(v[k]))
			}
		}
	default:
		parts = []string{scalar(v)}
	}
	for i, s := range parts {
		if s == "" || s == "." || s == ".." {
			return "", fmt.Sprintf("must not be %q: a path parameter may not be empty, . or ..", s)
		}
		parts[i] = url.PathEscape(s)
	}
	sep := ","
	switch p.Style {
	case "label":
		if explode {
			sep = "."
		}
		return "." + strings.Join(parts, sep), ""
	case "matrix":
		if explode {
			return ";" + p.Name + "=" + strings.Join(parts, ";"+p.Name+"="), ""
		}
		return ";" + p.Name + "=" + strings.Join(parts, ","), ""
	}
	return strings.Join(parts, sep), ""
}

// addQuery serializes a query parameter: form (exploded by default),
// spaceDelimited, pipeDelimited or deepObject.
func addQuery(q url.Values, p *openapi3.Parameter, v any) {
	explode := p.Explode == nil || *p.Explode
	switch v := v.(type) {
	case []any:
		if explode && (p.Style == "" || p.Style == "form") {
			for _, e := range v {
				q.Add(p.Name, scalar(e))
			}
			return
		}
		sep := ","
		switch p.Style {
		case "spaceDelimited":
			sep = " "
		case "pipeDelimited":
			sep = "|"
		}
		q.Add(p.Name, joinValues(v, false, sep))
	case map[string]any:
		for _, k := range sortedKeys(v) {
			switch {
			case p.Style == "deepObject":
				q.Add(p.Name+"["+k+"]", scalar(v[k]))
			case explode:
				q.Add(k, scalar(v[k]))
			}
		}
		if p.Style != "deepObject" && !explode {
			q.Add(p.Name, joinValues(v, false, ","))
		}
	default:
		q.Add(p.Name, scalar(v))
	}
}

// joinValues writes an array or object as one delimited value (style
// simple).
func joinValues(v any, explode bool, sep string) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = scalar(e)
		}
		return strings.Join(parts, sep)
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(v) {
			if explode {
				parts = append(parts, k+"="+scalar(v[k]))
			} else {
				parts = append(parts, k, scalar(v[k]))
			}
		}
		return strings.Join(parts, sep)
	}
	return scalar(v)
}

// scalar writes a JSON value as a parameter's text: a string as it is, a
// number as written, anything else as JSON.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// formBody encodes an object as application/x-www-form-urlencoded.
func formBody(raw json.RawMessage) (string, string) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return "", "a form body must be a JSON object of the form's fields"
	}
	form := url.Values{}
	for _, k := range sortedKeys(obj) {
		switch v := obj[k].(type) {
		case []any:
			for _, e := range v {
				form.Add(k, scalar(e))
			}
		default:
			form.Add(k, scalar(v))
		}
	}
	return form.Encode(), ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func validCookieName(name string) bool {
	return name != "" && httpguts.ValidHeaderFieldName(name)
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
