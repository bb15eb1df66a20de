package dialect

// What the author of a tool can do about each kind of error. A Problem's
// Fix holds one of these.
const (
	fixToolName          = "rename the tool"
	fixRequest           = "send fewer tools in one request, or make more of their properties required"
	fixRoot              = "make the tool's input a struct"
	fixRootComposition   = "move the alternatives into a property of the input"
	fixAny               = "give the field a concrete type, or a type with a JSONSchema method"
	fixMap               = "make the field a slice of key-value structs, or use a dialect that takes maps (mcp, anthropic, gemini-json-schema)"
	fixRecursion         = "give the type a fixed number of levels, or use a dialect with $ref (openai-strict, gemini-json-schema)"
	fixRecursionOptional = "make the field that recurses optional (omitempty)"
	fixPropertyName      = "rename the property in the field's json tag to letters, digits and '_', such as \"user_id\""
	fixEmptyObject       = "give the struct a field, or leave it out of the input"
	fixTuple             = "make the field a slice"
	fixOneOf             = "write the alternatives as one anyOf"
	fixNull              = "give the field a type besides null"
	fixTypes             = "give the field one type besides null, or use gemini-json-schema"
	fixEnum              = "use an enum of strings or numbers"
	fixEnumSize          = "use fewer or shorter enum values, or describe them in the description"
	fixSplit             = "split the tool into smaller ones"
	fixOptional          = "make more properties required, or split the tool"
	fixUnions            = "give more properties a single type, or split the tool"
	fixDepth             = "flatten the nesting of the input's types"
	fixRef               = "write the schema with local references into $defs"
	fixInline            = "use fewer shared definitions, or gemini-json-schema"
	fixKeyword           = "check that constraint in the handler and leave it out of the schema"
	fixExamples          = "leave the examples out of the tool, or set the dialect's Examples to Fold"
)
