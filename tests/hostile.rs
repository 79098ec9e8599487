//! A hostile client, against one node and against a two-node club behind
//! the shipped nginx (PostgreSQL and a Qdrant server: `make test-qdrant`;
//! skipped elsewhere): paths that try to leave a match's routes, headers
//! that try to pick their own rate-limit bucket, bursts and big bodies
//! that try to walk past a cap, floods of dear commands, and a catch-up
//! of a very long match. docs/security.md names the test of each item.

mod common;

#[path = "hostile/caps.rs"]
mod caps;
#[path = "hostile/club.rs"]
mod club;
#[path = "hostile/commands.rs"]
mod commands;
#[path = "hostile/proxies.rs"]
mod proxies;
#[path = "hostile/raw.rs"]
mod raw;
#[path = "hostile/traversal.rs"]
mod traversal;
