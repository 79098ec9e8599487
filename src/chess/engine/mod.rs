//! Engines choose the persona's moves. `Engine` is the seam: Stockfish over
//! UCI when it is installed, the built-in searcher otherwise, so a game never
//! stops for want of an engine.

mod books;
mod builtin;
mod memo;
mod queue;
mod stockfish;
pub mod style;
pub mod uci;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use books::{SearchBooks, SearchTally};
pub use builtin::BuiltinEngine;
pub use memo::Remembering;
pub use stockfish::StockfishEngine;
pub use uci::Score;

/// How a persona likes to play; engines use it to pick among near-equal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    Aggressive,
    Positional,
    Defensive,
    Tricky,
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub fen: String,
    pub elo: u32,
    pub style: Style,
    pub budget: SearchBudget,
}

/// How much the engine searches for a persona's move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchBudget {
    /// Wall-clock milliseconds: on a busy machine fewer nodes fit, so the
    /// persona plays weaker when the server is loaded.
    Millis(u64),
    /// A fixed node count: the same strength under any load, and the
    /// cheapest budget (Stockfish spends ~1.8 ms of CPU on `movetime 1`,
    /// ~0.35 ms on `nodes 300`). `within_ms`, if set, caps the time too:
    /// the nodes decide on a machine fast enough for them, the clock on a
    /// slower or busier one, so a move never keeps the player waiting longer.
    Nodes { nodes: u64, within_ms: Option<u64> },
}

/// The engine's move and what its search said, when it scored: the searched
/// position's score for its side to move (the best line's), and the score of
/// the position after the chosen move for the side to move then. Both are
/// what `evaluate` would say, so neither the opponent's last move nor this
/// one needs a second search for its odds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub uci: String,
    pub root_score: Option<Score>,
    pub score_after: Option<Score>,
}

impl Chosen {
    pub fn unscored(uci: String) -> Chosen {
        Chosen {
            uci,
            root_score: None,
            score_after: None,
        }
    }
}

/// The best move of a position at full strength, and the position's score
/// for its side to move along that move's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestLine {
    pub uci: String,
    pub score: Score,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("engine process failed: {0}")]
    Process(String),
    #[error("engine protocol error: {0}")]
    Protocol(String),
    #[error("no legal move in this position")]
    NoMove,
}

#[async_trait]
pub trait Engine: Send + Sync {
    fn name(&self) -> String;
    /// The best move for the side to move, in UCI, played at `elo`.
    async fn choose_move(&self, req: &SearchRequest) -> Result<Chosen, EngineError>;
    /// The position's score for the side to move, at full strength, searching
    /// about `nodes` nodes (a fixed budget, so the cost is predictable).
    async fn evaluate(&self, fen: &str, nodes: u64) -> Result<Score, EngineError>;
    /// The best move at full strength, searching about `nodes` nodes, and
    /// the score it keeps (what a review shows as the better move).
    async fn best_line(&self, fen: &str, nodes: u64) -> Result<BestLine, EngineError>;
    /// What a search of `fen` at `nodes` already said, if this engine
    /// remembers it: no search (`Remembering`).
    fn known_score(&self, _fen: &str, _nodes: u64) -> Option<Score> {
        None
    }
    /// How long a search asked for now should expect to wait for a worker
    /// (zero for an engine that searches on the caller's own task).
    fn queue_wait(&self) -> Duration {
        Duration::ZERO
    }
    /// How its persona searches under a node budget and a time cap ended
    /// (`books.rs`); nothing for an engine that keeps no books.
    fn searches(&self) -> SearchTally {
        SearchTally::default()
    }
}

/// How an engine's processes share the CPU with everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// A player waits for its answers: the persona's moves, the odds.
    Live,
    /// Nobody waits: the deeper evaluation, the review after a game. Its
    /// processes run at the lowest priority (SCHED_IDLE, nice 19), so they search on
    /// what the live searches leave and never make a player wait.
    Spare,
}

/// Stockfish if the binary exists and answers, else the built-in engine;
/// either way its evaluations are remembered (`memo.rs`).
pub async fn start(stockfish: &Path, workers: usize, priority: Priority) -> Arc<dyn Engine> {
    if stockfish.exists() {
        match StockfishEngine::start(stockfish, workers, priority).await {
            Ok(sf) => {
                return Arc::new(Remembering::new(WithFallback {
                    primary: sf,
                    fallback: BuiltinEngine,
                }));
            }
            Err(e) => tracing::warn!(
                "stockfish at {} did not start ({e}); using the built-in engine",
                stockfish.display()
            ),
        }
    } else {
        tracing::info!("no stockfish at {}; using the built-in engine", stockfish.display());
    }
    Arc::new(Remembering::new(BuiltinEngine))
}

/// Asks the primary engine, and the built-in one if it fails, so the persona
/// always has a move.
struct WithFallback {
    primary: StockfishEngine,
    fallback: BuiltinEngine,
}

#[async_trait]
impl Engine for WithFallback {
    fn name(&self) -> String {
        self.primary.name()
    }

    async fn choose_move(&self, req: &SearchRequest) -> Result<Chosen, EngineError> {
        match self.primary.choose_move(req).await {
            Ok(m) => Ok(m),
            Err(e) => {
                tracing::warn!(
                    "{} failed ({e}); the built-in engine moves instead",
                    self.primary.name()
                );
                self.fallback.choose_move(req).await
            }
        }
    }

    async fn evaluate(&self, fen: &str, nodes: u64) -> Result<Score, EngineError> {
        match self.primary.evaluate(fen, nodes).await {
            Ok(s) => Ok(s),
            Err(e) => {
                tracing::warn!(
                    "{} could not evaluate ({e}); the built-in engine does",
                    self.primary.name()
                );
                self.fallback.evaluate(fen, nodes).await
            }
        }
    }

    async fn best_line(&self, fen: &str, nodes: u64) -> Result<BestLine, EngineError> {
        match self.primary.best_line(fen, nodes).await {
            Ok(b) => Ok(b),
            Err(e) => {
                tracing::warn!(
                    "{} could not find the best move ({e}); the built-in engine does",
                    self.primary.name()
                );
                self.fallback.best_line(fen, nodes).await
            }
        }
    }

    fn queue_wait(&self) -> Duration {
        self.primary.queue_wait()
    }

    fn searches(&self) -> SearchTally {
        self.primary.searches()
    }
}
