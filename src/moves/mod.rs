//! The persona's own moves. A `MoveBrain` decides
//! one move from the game so far: `EngineBrain` (Stockfish or the built-in
//! engine at the persona's Elo and style), `LlmBrain` (a multi-turn chat with
//! board commands), `PipelineBrain` (composed LLM agents with board tools),
//! and `RandomBrain` (a baseline for self-play). The driver (`decide_move`)
//! holds them to one contract: one decision at a time, a rejected move
//! is shown back to the brain, five rejections and the persona resigns.

pub mod calibrate;
mod driver;
mod engine;
mod llm_brain;
mod pipeline;
mod prompt;
pub mod selfplay;
mod spec;

use async_trait::async_trait;

use crate::chess::Game;
use crate::chess::engine::{Chosen, EngineError, Score};
use crate::llm::{LlmError, Usage};

pub use driver::{Driven, MAX_ATTEMPTS, decide_move};
pub use engine::{EngineBrain, RandomBrain};
pub use llm_brain::{LlmBrain, LlmBrainConfig};
pub use pipeline::{AgentKind, PipelineBrain, PipelineConfig};
pub use prompt::{board_diagram, extract_move};
pub use spec::{BrainSpec, SpecError, Workshop};

/// What a brain sees: the whole game (it plays the side to move) and the
/// moves already rejected in this decision, with the reasons.
pub struct MoveInput<'a> {
    pub game: &'a Game,
    pub rejections: &'a [Rejection],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub attempted: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveAction {
    /// A move in UCI or SAN; the driver checks it.
    Move(String),
    Resign,
}

/// A decision and what it cost, for self-play statistics and logs.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveDecision {
    pub action: MoveAction,
    pub usage: Usage,
    /// Moves the brain proposed that were not legal, before this one.
    pub illegal: u32,
    /// True when an LLM brain gave up and its engine chose the move.
    pub fallback: bool,
    /// Private reasoning, kept for the after-match reveal.
    pub reasoning: Option<String>,
    /// When the engine chose the move: its score of the position the move
    /// was chosen in (the opponent's last move's odds need no search) ...
    pub root_score: Option<Score>,
    /// ... and of the position after the move, for the side to move then.
    pub score_after: Option<Score>,
}

impl MoveDecision {
    pub fn play(uci: impl Into<String>) -> Self {
        MoveDecision {
            action: MoveAction::Move(uci.into()),
            usage: Usage::default(),
            illegal: 0,
            fallback: false,
            reasoning: None,
            root_score: None,
            score_after: None,
        }
    }

    /// The engine's choice, with its score when the search gave one.
    pub fn engine(chosen: Chosen) -> Self {
        MoveDecision {
            root_score: chosen.root_score,
            score_after: chosen.score_after,
            ..MoveDecision::play(chosen.uci)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Llm(#[from] LlmError),
}

#[async_trait]
pub trait MoveBrain: Send + Sync {
    /// Kind and model or engine, for logs and self-play reports.
    fn name(&self) -> String;
    /// True when a decision costs no more than an engine search, so the
    /// match may decide its reply before reacting to the opponent's move.
    fn answers_at_once(&self) -> bool {
        false
    }
    async fn choose(&mut self, input: MoveInput<'_>) -> Result<MoveDecision, MoveError>;
}
