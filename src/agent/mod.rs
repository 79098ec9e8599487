//! The main agent: given the trigger, the game context, the persona and the
//! memories the subconscious handed over, a `Brain` decides the actions.
//! `ScriptedBrain` is deterministic and needs no model; `LlmAgent` asks a
//! language model and falls back to the scripted brain turn by turn.

mod draft;
mod floor;
mod llm_agent;
mod prompt;
mod scripted;
mod speech;
#[cfg(test)]
mod tests;
mod validate;

use async_trait::async_trait;

use std::collections::HashMap;

use crate::actions::Decision;
use crate::config::RoleConfig;
use crate::ids::MatchId;
use crate::llm::{ChatModel, TextSink};
use crate::memory::Recalled;
use crate::personas::Persona;
use crate::store::scrub::Forms;
use crate::triggers::{GameContext, Trigger};

pub use llm_agent::LlmAgent;
pub use scripted::ScriptedBrain;
pub use validate::{MAX_MEMORY_CHARS, looks_like_instruction, parse_decision};

#[derive(Clone)]
pub struct BrainInput<'a> {
    pub trigger: &'a Trigger,
    pub ctx: &'a GameContext,
    pub persona: &'a Persona,
    pub memories: &'a [Recalled],
    /// The persona's current emotion.
    pub emotion: &'a str,
    /// This match's session on the language models, if there are any.
    pub llm: Option<&'a dyn ChatModel>,
    pub sampling: RoleConfig,
    /// Where the persona's message goes while a model still writes it (the
    /// whole draft so far, each time it grows); None to say it only whole.
    pub draft: Option<TextSink>,
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
    /// A memory was erased: forget these forms of its words wherever the
    /// brain keeps earlier turns of `matches` (a model's thread: those of
    /// the memory's owner), so no later call sends them again.
    fn forget(&self, _matches: &[MatchId], _forms: &Forms) {}
}

/// Matches whose state an agent holds at once (live matches are far fewer).
const MAX_MATCHES: usize = 10_000;

/// The entry for `id`, making room first if the map is full: matches
/// abandoned before after_match would otherwise pile up.
fn bounded_entry<V: Default>(map: &mut HashMap<MatchId, V>, id: MatchId) -> &mut V {
    if map.len() >= MAX_MATCHES && !map.contains_key(&id) {
        let evict = map.keys().next().copied();
        evict.map(|k| map.remove(&k));
    }
    map.entry(id).or_default()
}
