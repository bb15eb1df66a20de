// Package providertest holds the requests that the adapters' tests send:
// the two turns of the exchange that agenttest.TestModel drives, and tools
// whose schemas each dialect must rewrite.
package providertest
