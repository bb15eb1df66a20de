// Command hands serves hands' bundled tools over the Model Context Protocol,
// prints their schemas, and runs them from the command line.
//
// Usage:
//
//	hands serve [--http ADDR] [--stateless] [--config FILE]
//	hands schema [--dialect D] [TOOL…]
//	hands call TOOL 'JSON'
//	hands version
//
// serve speaks MCP on stdio by default, for a desktop client that starts it
// as a process; with --http it serves streamable HTTP at /mcp on ADDR, and
// the hosted files at /files/, so that the URLs host_file returns work at
// once, and at / a playground page for trying the tools in a browser. It needs no configuration: the bucket is the directory ./hands-data.
// The environment (or the JSON object in --config) may set:
//
//	HANDS_BUCKET               where host_file writes: file://…, mem:// or s3://… (default file://./hands-data)
//	HANDS_PUBLIC_URL           the public base URL of the bucket's files
//	HANDS_MAX_FILE_BYTES       the largest file host_file accepts
//	HANDS_FETCH_ALLOW_PRIVATE  let fetch_markdown reach loopback and private addresses (default false)
//
// schema prints each tool as the provider of a dialect takes it in a
// request, ready to paste (--dialect list names them): MCP's inputSchema,
// an OpenAI Responses function tool with strict, Anthropic's input_schema,
// Gemini's parameters or parametersJsonSchema. The problems of the tools
// go to stderr, and it exits non-zero if the provider would refuse one. It
// opens no bucket and creates no file. call validates the JSON arguments, runs the
// tool, prints its result on stdout and its progress on stderr, and exits
// non-zero on any error, printing a validation error's issues. version
// prints the module version and, for a build from a checkout, the revision
// it was built from, as in "hands v1.2.3" or "hands devel (rev 1a6bc8d,
// modified)".
package main
