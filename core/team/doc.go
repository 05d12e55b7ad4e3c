// Package team is a space shared by a team (SPEC §10, docs/team.md): the team server's domain
// (members, their tokens, and the space operations they may call), the seam its store plugs into,
// and the client side (search through a server, push this machine's spaces to it).
//
// # The seam
//
// Store is everything a team server keeps. The embedded SQLite store (OpenSQLite: the
// workspace's spaces.db for the records and team.db for members and tokens) is the default; a
// PostgreSQL store (core/spaces/pgstore) implements the same interface, and OpenStore picks one
// from `cairn serve --store` or `[serve] store`.
//
// The contract every implementation keeps:
//
//   - Authorization is not the store's: Server checks that a member may reach a space before it
//     calls Search, AddComment or Import with it. The store bounds every statement by that space:
//     a search reads only the tasks and comments of space (never another space's, whatever the
//     input's task_id or around_ref), AddComment refuses a task outside space (NOT_FOUND, as for
//     a task that does not exist), and Import never writes a record of another space: a task or
//     comment id that already belongs to another space is FORBIDDEN, and the whole batch is
//     refused (one transaction).
//   - Answers are spaces' answers, byte for byte: the same corpus in two stores gives the same
//     hits, order (newest first, then comment id), excerpts (redacted, folded matching),
//     truncated and around_ref neighbours; the limits and input checks are spaces.SearchInput's.
//   - Writes are idempotent upserts by id: a batch sent twice (a client retrying after a lost
//     answer) leaves every record once. Several servers may share one store: nothing a store
//     caches may be made stale by another server (a removed member's token fails at once).
//   - Members and tokens: a token is never stored, only its MAC (TokenMAC, HMAC-SHA256 under the
//     store's Key); Member looks a token up by its public id (TokenID) and the caller compares
//     the MAC in constant time. RemoveMember deletes the member's token and spaces at once.
//   - Errors are coded (errs): INVALID_INPUT, NOT_FOUND, FORBIDDEN, STORAGE_BUSY when the
//     database cannot be had within the wait, CANCELLED when ctx ends.
package team
