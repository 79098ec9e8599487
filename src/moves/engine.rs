//! Brains without a language model: the engine at the persona's Elo and
//! style, and uniformly random legal moves (a self-play baseline).

use std::sync::Arc;

use async_trait::async_trait;
use rand::seq::SliceRandom;

use super::{MoveBrain, MoveDecision, MoveError, MoveInput};
use crate::chess::engine::{Chosen, Engine, EngineError, SearchBudget, SearchRequest, Style};

pub struct EngineBrain {
    engine: Arc<dyn Engine>,
    elo: u32,
    style: Style,
    budget: SearchBudget,
}

impl EngineBrain {
    pub fn new(engine: Arc<dyn Engine>, elo: u32, style: Style, budget: SearchBudget) -> Self {
        EngineBrain {
            engine,
            elo,
            style,
            budget,
        }
    }

    pub fn request(&self, fen: String) -> SearchRequest {
        SearchRequest {
            fen,
            elo: self.elo,
            style: self.style,
            budget: self.budget,
        }
    }

    /// The engine's move for this position (also the LLM brains' fallback).
    pub async fn engine_move(&self, fen: String) -> Result<Chosen, EngineError> {
        self.engine.choose_move(&self.request(fen)).await
    }
}

#[async_trait]
impl MoveBrain for EngineBrain {
    fn name(&self) -> String {
        format!("engine {} at {} ({:?})", self.engine.name(), self.elo, self.style).to_lowercase()
    }

    fn answers_at_once(&self) -> bool {
        true
    }

    async fn choose(&mut self, input: MoveInput<'_>) -> Result<MoveDecision, MoveError> {
        let chosen = self.engine_move(input.game.fen()).await?;
        Ok(MoveDecision::engine(chosen))
    }
}

pub struct RandomBrain;

#[async_trait]
impl MoveBrain for RandomBrain {
    fn name(&self) -> String {
        "random".into()
    }

    async fn choose(&mut self, input: MoveInput<'_>) -> Result<MoveDecision, MoveError> {
        let legal = input.game.legal_moves();
        let (uci, _) = legal.choose(&mut rand::thread_rng()).ok_or(EngineError::NoMove)?;
        Ok(MoveDecision::play(uci.clone()))
    }
}
