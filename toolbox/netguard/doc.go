// Package netguard keeps tools that reach the network off the networks they
// must not reach: loopback, private ranges, link-local addresses (the cloud
// metadata service among them) and every other address that is not on the
// public internet. A [Guard] checks the address each connection is about to
// dial, after DNS resolution, so a name that resolves to a private address,
// a redirect to one and a pooled connection are all covered.
//
// An operator opens what a deployment needs, and no more: one internal
// service by its exact host and port ([Options.Allow]), the backends it
// configures ([Guard.Trust]), or, on a trusted network, everything
// ([Options.AllowPrivate]). Every tool of package toolbox and its
// subpackages that reaches the network dials through a Guard.
package netguard
