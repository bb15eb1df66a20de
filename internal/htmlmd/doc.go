// Package htmlmd converts HTML to Markdown for the tools that read pages
// and messages (fetch_markdown, browse, email_read), in time and memory
// linear in the page's size: markup whose parsing or rendering would cost
// more — misnested formatting, spanned table cells, deep nesting — is
// reshaped within fixed bounds before it is converted.
package htmlmd
