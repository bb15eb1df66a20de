// Package image holds image_generate, a tool that makes images from a
// text prompt through OpenAI's Images API or the Gemini API's image
// models, on their official SDKs, and returns each as an image part —
// and, when the program hosts files, with the URL it stored it at.
//
//	backend, err := image.Open("openai://gpt-image-1", nil) // key from OPENAI_API_KEY
//	if err != nil { ... }
//	gen := image.Generate(backend, &image.Options{Host: upload})
//
// # Backends
//
// [Open] reads a URL whose scheme is the API and whose host is the model:
// openai://gpt-image-1 (key in OPENAI_API_KEY) or
// gemini://gemini-2.5-flash-image (key in GEMINI_API_KEY). endpoint=URL
// sends the requests to another base URL, and key_env=NAME reads the key
// from another variable; a URL that holds a key is refused.
//
// # Limits
//
// A call makes at most Options.MaxCount images (1 unless set, never more
// than 4). Each image is at most Options.MaxBytes decoded (8 MiB unless
// set), and a response longer than what that many images take in base64
// is cut off as it is read, before the SDK decodes it. The bytes must be
// the type the backend claims (sniffed, then decoded: PNG, JPEG and GIF;
// WebP by its signature), or the call fails with ErrImageType. Errors
// never hold the key.
//
// # Annotations
//
// The tool reaches a service outside the program (open-world). Without
// Options.Host it changes nothing and is read-only; with it, each call
// stores files, and it is not.
package image
