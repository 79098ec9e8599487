//! A match the player walked away from, ended when the runtime's look
//! (`runtime/abandoned.rs`) says so: no result for either side (PGN `*`),
//! left out of the head-to-head, its timers and registry entry freed, no
//! after_match trigger or reflection, and one line remembered, that it was
//! left.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{Events, MatchActor};
use crate::chess::GameEnd;
use crate::memory::{CreatedBy, MemoryType, NewMemory};
use crate::runtime::RuntimeError;

impl MatchActor {
    /// Ends the match as abandoned unless the player came back after
    /// `cutoff` (between the runtime's look and this command); true if it ended.
    pub(super) async fn abandon(&mut self, cutoff: DateTime<Utc>) -> Result<bool, RuntimeError> {
        if self.table.game().end().is_some() || self.idle.heard_since(cutoff) {
            return Ok(false);
        }
        let mut events = Events::new();
        self.record_end(GameEnd::Abandoned, &mut events).await?;
        self.remember_it_was_left().await;
        self.stop_talking();
        Ok(true)
    }

    /// The one memory of a game that never finished: that it was left.
    async fn remember_it_was_left(&self) {
        let moves = match self.table.game().moves().len().div_ceil(2) {
            0 => "before making a move".to_string(),
            1 => "after 1 move".to_string(),
            n => format!("after {n} moves"),
        };
        let colour = if self.table.user().is_white() { "White" } else { "Black" };
        let content = format!(
            "On {}, {} left our game unfinished {moves}, playing {colour}.",
            self.started_at.format("%-d %B %Y"),
            self.player.name
        );
        let new = NewMemory {
            player_id: self.player.id,
            persona_id: self.persona.id.clone(),
            memory_type: MemoryType::GameContext,
            content,
            related_match_id: Some(self.id),
            created_by: CreatedBy::MainAgent,
            metadata: json!({ "source": "abandoned" }),
            importance: 0.3,
            position: None,
        };
        if let Err(e) = self.node.memory.save(new).await {
            tracing::warn!(match_id = %self.id, "the abandoned match was not remembered: {e}");
        }
    }
}
