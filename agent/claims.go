package agent

import "github.com/hands-go/hands/claims"

// defaultClaims is the claim store of a nil Options.Claims: this process's
// memory.
var defaultClaims = &claims.Memory{}
