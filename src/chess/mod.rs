//! Chess rules and engines. Knows nothing of HTTP, SQL or agents.

pub mod engine;
pub mod game;
pub mod notation;
pub mod odds;
pub mod openings;
pub mod pgn;
pub mod puzzles;
pub mod tools;

pub use game::{Game, GameEnd, PlayedMove};
pub use notation::MoveError;
