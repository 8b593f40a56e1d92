// Package archtest holds the tests that keep hubd's package structure: no
// transport (REST under internal/api, GraphQL, the web pages, git over
// HTTP, the OAuth pages, SSH) imports another, services never live inside
// a transport, and wire converts without touching storage. It has no code
// of its own.
package archtest
