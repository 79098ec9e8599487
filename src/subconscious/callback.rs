//! A moment the player and the persona shared, called back once a match:
//! at the greeting of a player it knows, the shared moment told longest ago
//! (or never), unless the player marked it never to be recalled. Shared
//! moments come back this way only, so a match holds at most one.

use super::Subconscious;
use crate::familiarity::Stage;
use crate::memory::MemoryQuery;
use crate::memory::{Memory, MemoryError, MemoryType, Recalled};
use crate::triggers::{GameContext, Trigger, TriggerKind};

/// Why a callback came, as the persona says it ("That reminds me, ...").
pub const WHY: &str = "a moment we shared";

impl Subconscious {
    pub(super) async fn callback(&self, trigger: &Trigger, ctx: &GameContext) -> Result<Option<Recalled>, MemoryError> {
        let known = ctx.history.familiarity.stage > Stage::Stranger;
        if trigger.kind != TriggerKind::BeforeMatch || !known {
            return Ok(None);
        }
        let query = MemoryQuery {
            persona: Some(ctx.persona_id.clone()),
            memory_type: Some(MemoryType::SharedMoment),
            ..MemoryQuery::default()
        };
        let moments = self.memory.list(ctx.player_id, &query).await?;
        let longest_ago = moments
            .into_iter()
            .filter(Memory::recallable)
            .min_by_key(|m| (m.last_recalled_at, m.created_at));
        Ok(longest_ago.map(|memory| Recalled {
            memory,
            similarity: 1.0,
            score: 1.0,
            why: WHY.into(),
            relevance: None,
        }))
    }
}

/// The recall with shared moments only as the callback, after the rest.
pub(super) fn with_callback(mut chosen: Vec<Recalled>, callback: Option<Recalled>) -> Vec<Recalled> {
    chosen.retain(|r| r.memory.memory_type != MemoryType::SharedMoment);
    chosen.extend(callback);
    chosen
}
