//! kibitz: a chess-club persona that plays you, chats, and remembers you.
//!
//! Data flow: `server` (HTTP/WS) -> `runtime` (one task per match) ->
//! `turn` (one trigger, in the vocabulary of `triggers`) -> `subconscious`
//! (recall) -> `agent` (the main agent's brain) -> `actions` persisted and
//! pushed as `events`. Beside them, `chess`, `moves`, `memory`, `listen`,
//! `personas`, `llm` and `store` know nothing of HTTP; no two top-level
//! modules import each other (ARCHITECTURE.md draws the floors).

pub mod actions;
pub mod agent;
pub mod backup;
pub mod chess;
pub mod config;
pub mod embed;
pub mod events;
pub mod familiarity;
pub mod ids;
pub mod learn;
pub mod lichess;
pub mod listen;
pub mod llm;
pub mod memory;
pub mod moves;
pub mod personas;
pub mod puzzles;
pub mod rating;
pub mod reflection;
pub mod runtime;
pub mod server;
pub mod store;
pub mod subconscious;
pub mod telemetry;
pub mod tokens;
pub mod triggers;
pub mod turn;
