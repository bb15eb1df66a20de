package toolbox

import "context"

// A HostFunc stores body in public storage under key, with its content
// type, and returns the URL at which it is served; a file of the same key
// is replaced. It is how a tool that makes a file — a screenshot, a
// generated image — gives the model a link to it, without importing the
// storage's packages: package files makes one on a bucket (files.Hoster),
// with the checks and the write path of its host_file tool, and the tool
// takes it in its options.
//
// A key is a relative path of segments separated by '/', such as
// "screenshots/home.png", at most 1024 bytes, with no leading '/', no '.',
// '..' or empty segment, no backslash or control character, and no name
// ending in ".attrs"; any other key is refused with ErrInvalidKey. A
// content type that is not a MIME type is refused with ErrContentType, and
// a body over the function's size limit with ErrTooLarge; a failure to
// store is a *OpError.
type HostFunc func(ctx context.Context, key string, body []byte, contentType string) (url string, err error)
