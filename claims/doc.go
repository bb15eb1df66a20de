// Package claims records one-time IDs as used, so that what they name
// happens at most once, even across processes: an interrupt of package
// agent resumed twice, a request state of package mcpserver answered
// twice. A [Store] claims an ID; of any number of claims of one ID, in one
// process or in several sharing the store, exactly one succeeds.
//
//	store := claims.Dir{Path: "/var/lib/app/claims"} // processes of one machine
//	ok, err := store.Claim(ctx, id)
//
// Three stores come with the package: [Memory] for one process, [Dir] for
// the processes of one machine, and [SQL] for any that reach one database.
//
// # IDs
//
// An ID is 32 lower-case hexadecimal digits, 128 random bits ([NewID]):
// what agent's interrupts and mcpserver's request states carry, and what
// [ValidID] checks. Dir refuses any other ID, so that an ID is never a
// path.
package claims
