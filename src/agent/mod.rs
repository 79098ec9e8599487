//! The main agent: given the trigger, the game context, the persona and the
//! memories the subconscious handed over, a `Brain` decides the actions.
//! `ScriptedBrain` is deterministic and needs no model; LLM brains plug in
//! behind the same trait.

mod scripted;

use async_trait::async_trait;

use crate::actions::Decision;
use crate::memory::Recalled;
use crate::personas::Persona;
use crate::triggers::{GameContext, Trigger};

pub use scripted::ScriptedBrain;

pub struct BrainInput<'a> {
    pub trigger: &'a Trigger,
    pub ctx: &'a GameContext,
    pub persona: &'a Persona,
    pub memories: &'a [Recalled],
    /// The persona's current emotion.
    pub emotion: &'a str,
}

#[derive(Debug, thiserror::Error)]
pub enum BrainError {
    #[error("brain failed: {0}")]
    Failed(String),
}

#[async_trait]
pub trait Brain: Send + Sync {
    fn name(&self) -> &'static str;
    async fn decide(&self, input: BrainInput<'_>) -> Result<Decision, BrainError>;
}
