package dialect

// The predefined dialects. Each function returns a new copy, which the
// caller may change (to describe a compatible server, say) without
// changing what any other part of the program uses; a program converts
// many schemas with one copy. Each comment names the documentation the
// rules and default limits follow, as published in 2026.

// MCP returns a new copy of the dialect of the Model Context Protocol: draft
// 2020-12 as it is. The root must be an object schema; tool names have 1 to
// 128 ASCII letters, digits, '_', '-' and '.'. A tool's examples are kept:
// MCP's Tool has no field for them, and draft 2020-12 has one, the
// "examples" of the input schema's root, which lists valid instances of
// the schema, the whole arguments of calls; mcpserver puts them there.
// Source:
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools
// (Tool names; inputSchema).
func MCP() *Dialect { return mcp.Clone() }

// OpenAIStrict returns a new copy of the dialect of OpenAI function calling
// with "strict": true (Structured Outputs). Every property is required,
// optional ones accept null instead; every object has additionalProperties
// false; only the listed keywords and formats remain, and the others are
// folded into the description; oneOf becomes anyOf, and a $ref with sibling
// keywords is wrapped in a one-branch anyOf. Maps, values of any type,
// allOf, not, if/then/else, dependentSchemas and patternProperties cannot be
// expressed.
// Sources:
// https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas
// (supported types and properties, limits: 5000 properties, 10 levels, 1000
// enum values, 15,000 characters for an enum of more than 250 strings,
// 120,000 characters in all); the function name rule (^[a-zA-Z0-9_-]{1,64}$)
// and the limit of 128 functions per request from the Chat Completions API
// reference; openai/openai-node#1988 (July 2026) for default, minLength and
// maxLength being rejected. A function has no field for examples and the
// page does not list the keyword, so a tool's examples are folded into its
// description, at most 1024 bytes of them. Features: DeferLoading,
// ToolSearch and Namespaces of the Responses API
// (https://developers.openai.com/api/docs/guides/tools-tool-search),
// AllowedTools (the allowed_tools tool choice) and PerToolStrict.
func OpenAIStrict() *Dialect { return openAIStrict.Clone() }

// Anthropic returns a new copy of the dialect of the Claude Messages API
// without strict tool use: any draft 2020-12 input_schema whose root is an
// object and has no anyOf, oneOf or allOf at the top level. Names match
// ^[a-zA-Z0-9_-]{1,128}$. A tool's examples are kept: they go as the
// tool's input_examples, a list of input objects that the API checks
// against the input_schema. Features: DeferLoading and ToolSearch (the tool
// search tools), EagerInputStreaming and PerToolStrict.
// Source:
// https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools
// (the tool's parameters; "Providing tool use examples").
func Anthropic() *Dialect { return anthropic.Clone() }

// AnthropicStrict returns a new copy of the dialect of Claude's strict tool
// use ("strict": true): the keywords structured outputs support are kept
// (oneOf becomes anyOf, additionalProperties is false, const, default, the
// listed formats, patterns without backreferences, look-arounds or word
// boundaries, minItems of 0 or 1, larger ones written as 1), every other
// constraint is folded into the description, a $ref stands alone (the
// keywords beside it are dropped, each with a warning), and a recursive type
// is rejected: the reference that closes the cycle is left out. Limits: 20
// strict tools, 24 optional and 16 union-typed properties per request.
// Source:
// https://platform.claude.com/docs/en/build-with-claude/structured-outputs
// (JSON Schema limitations; complexity limits), and anthropic-sdk-python's
// lib/_parse/_transform.py for the folding; anthropic-sdk-go's schemautil.go
// (transformSchema: "$ref is not supported alongside other properties") for
// a $ref standing alone. A tool's examples are kept, as input_examples,
// a field of the tool beside its schema, as without strict.
func AnthropicStrict() *Dialect { return anthropicStrict.Clone() }

// Gemini returns a new copy of the dialect of a Gemini FunctionDeclaration's
// parameters: the OpenAPI 3.0 subset of its Schema object. One upper-case
// type and nullable: true instead of type lists, enums of strings only (an
// enum of numbers is folded into the description: Gemini answers 400 to an
// enum on INTEGER or NUMBER), no $ref (definitions are written out inline; a
// recursive type cannot be), no additionalProperties (maps cannot be
// expressed), const as a one-value enum, oneOf as anyOf; no allOf or not.
// exclusiveMinimum, exclusiveMaximum, multipleOf, uniqueItems, default and
// examples are folded. A tool without arguments has no parameters: Convert
// returns nil for an object schema without properties. Names have 1 to 128
// letters, digits, '_', '.', ':' and '-', starting with a letter or '_';
// property names start with a letter or '_' and hold up to 64 letters,
// digits and '_'.
// Sources: https://ai.google.dev/api/caching#FunctionDeclaration and #Schema
// ("enum: possible values of the element of Type.STRING with enum format";
// type, format, title, description, nullable, enum, maxItems, minItems,
// properties, required, minProperties, maxProperties, minLength, maxLength,
// pattern, example, anyOf, propertyOrdering, default, items, minimum,
// maximum; default is accepted but ignored, and example is read only at the
// root, so both are folded to reach the model); the Vertex AI
// FunctionDeclaration reference for the rules on property names and on the
// first character of a name. A FunctionDeclaration has no field for
// examples, and its Schema's example holds one instance, which the page
// does not say the model reads; so a tool's examples are folded into its
// description, at most 1024 bytes of them, as for GeminiJSONSchema.
func Gemini() *Dialect { return gemini.Clone() }

// GeminiJSONSchema returns a new copy of the dialect of a Gemini
// FunctionDeclaration's parametersJsonSchema: JSON Schema limited to $defs,
// $ref, $anchor, type, format, title, description, enum (strings and
// numbers), items, prefixItems, minItems, maxItems, minimum, maximum, anyOf,
// oneOf, properties, additionalProperties, required and propertyOrdering;
// other constraints are folded. A $ref has no sibling keywords, and a
// recursive type must recur through an optional property. Names as for
// Gemini.
// Source: https://ai.google.dev/api/caching#FunctionDeclaration
// (parametersJsonSchema) and the list of supported keywords documented for
// GenerationConfig.responseJsonSchema, which parametersJsonSchema's
// documentation does not repeat.
func GeminiJSONSchema() *Dialect { return geminiJSONSchema.Clone() }

// The originals, which nothing outside this file reaches: the functions
// above hand out copies.
var (
	mcp = &Dialect{ // see MCP
		Name:      "mcp",
		Provider:  "MCP",
		ToolNames: NameRule{MaxLength: 128, Chars: "_-."},
		Examples:  Keep,
	}

	openAIStrict = &Dialect{ // see OpenAIStrict
		Name:      "openai-strict",
		Provider:  "OpenAI strict mode",
		ToolNames: NameRule{MaxLength: 64, Chars: "_-"},
		NotAtRoot: []string{"anyOf", "oneOf", "allOf"},
		// "Supported properties" of Structured Outputs. minLength and
		// maxLength are listed as unsupported only for fine-tuned models,
		// but the API rejects them in strict mode (openai/openai-node#1988),
		// so they are folded, as is every keyword the page does not list.
		Keywords: table(
			[]string{"title", "description", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"},
			[]string{"default", "examples", "deprecated", "minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties", "contentEncoding", "contentMediaType", "dependentRequired"},
			annotationsDropped,
		),
		Formats: []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"},
		Passes:  TypedValues | CloseObjects | RequireAll | OneOfAsAnyOf | WrapRefSiblings,
		// The Responses API's tools; Chat Completions takes only
		// AllowedTools and PerToolStrict of them, and the OpenAI adapter
		// checks its tools there in a copy without the others.
		Features:            DeferLoading | ToolSearch | Namespaces | AllowedTools | PerToolStrict,
		MaxTools:            128,
		MaxProperties:       5000,
		MaxDepth:            10,
		MaxEnumValues:       1000,
		MaxEnumStringLength: 15000,
		LargeEnum:           250,
		MaxStringLength:     120000,
		Examples:            Fold,
		MaxFoldedExamples:   maxFoldedExamples,
	}

	anthropic = &Dialect{ // see Anthropic
		Name:      "anthropic",
		Provider:  "the Anthropic API",
		ToolNames: NameRule{MaxLength: 128, Chars: "_-"},
		NotAtRoot: []string{"anyOf", "oneOf", "allOf"},
		Features:  anthropicFeatures,
		Examples:  Keep,
	}

	anthropicStrict = &Dialect{ // see AnthropicStrict
		Name:      "anthropic-strict",
		Provider:  "Anthropic strict tool use",
		ToolNames: NameRule{MaxLength: 128, Chars: "_-"},
		NotAtRoot: []string{"anyOf", "oneOf", "allOf"},
		// "JSON Schema limitations": default and const are supported;
		// numerical, string-length and array constraints beyond minItems 0
		// or 1 are not; allOf is, without $ref inside.
		Keywords: table(
			[]string{"title", "description", "default", "allOf", "pattern", "minItems"},
			[]string{"examples", "deprecated", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxItems", "uniqueItems", "minProperties", "maxProperties", "contentEncoding", "contentMediaType", "dependentRequired"},
			annotationsDropped,
		),
		Formats: []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"},
		Passes: TypedValues | CloseObjects | OneOfAsAnyOf | StripRefSiblings | NoRecursion |
			ScalarEnums | PlainPatterns | MinItemsZeroOrOne | NoRefInAllOf,
		Features:              anthropicFeatures,
		MaxTools:              20,
		MaxOptionalProperties: 24,
		MaxUnionProperties:    16,
		Examples:              Keep,
	}

	gemini = &Dialect{ // see Gemini
		Name:          "gemini",
		Provider:      "Gemini parameters",
		ToolNames:     NameRule{MaxLength: 128, Chars: "_-.:", LetterFirst: true},
		PropertyNames: NameRule{MaxLength: 64, Chars: "_", LetterFirst: true},
		NotAtRoot:     []string{"anyOf", "oneOf", "allOf"},
		Keywords: table(
			[]string{"title", "description", "minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems", "minProperties", "maxProperties", "propertyOrdering"},
			[]string{"default", "examples", "deprecated", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "contentEncoding", "contentMediaType", "dependentRequired"},
			annotationsDropped,
		),
		Passes: TypedValues | OneOfAsAnyOf | InlineRefs | OpenAPITypes | OmitEmptyRoot |
			OrderProperties | ConstAsEnum | StringEnums,
		RecursionDepth:    2,
		Examples:          Fold,
		MaxFoldedExamples: maxFoldedExamples,
	}

	geminiJSONSchema = &Dialect{ // see GeminiJSONSchema
		Name:      "gemini-json-schema",
		Provider:  "Gemini parametersJsonSchema",
		ToolNames: NameRule{MaxLength: 128, Chars: "_-.:", LetterFirst: true},
		Keywords: table(
			[]string{"title", "description", "minItems", "maxItems", "minimum", "maximum", "$anchor", "prefixItems", "additionalProperties", "oneOf", "propertyOrdering"},
			[]string{"default", "examples", "deprecated", "minLength", "maxLength", "pattern", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "minProperties", "maxProperties", "contentEncoding", "contentMediaType", "dependentRequired"},
			annotationsDropped,
		),
		Passes:            WrapRefSiblings | RecurseThroughOptional | OrderProperties | ConstAsEnum | StringNumberEnums,
		Examples:          Fold,
		MaxFoldedExamples: maxFoldedExamples,
	}
)

// anthropicFeatures are what the Messages API takes per tool: defer_loading
// with its tool search tools, eager_input_streaming and strict. It has no
// namespaces and no allowed_tools choice.
// Sources: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool,
// fine-grained-tool-streaming and define-tools; anthropic-sdk-go v2.15.0's
// ToolParam.
const anthropicFeatures = DeferLoading | ToolSearch | EagerInputStreaming | PerToolStrict

// maxFoldedExamples is how many bytes of examples the predefined dialects
// that fold them write into a description: a handful of ordinary calls
// (Anthropic advises one to five), not a document that would crowd out
// the description itself.
const maxFoldedExamples = 1024

// annotationsDropped are annotations of no use to a model.
var annotationsDropped = []string{"$schema", "$id", "$comment", "readOnly", "writeOnly"}

// table builds a keyword table from the keywords kept, folded and dropped.
func table(keep, fold, drop []string) map[string]Action {
	m := map[string]Action{}
	for _, k := range keep {
		m[k] = Keep
	}
	for _, k := range fold {
		m[k] = Fold
	}
	for _, k := range drop {
		m[k] = Drop
	}
	return m
}
