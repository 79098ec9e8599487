//! Matches the player walked away from. Every so often the runtime asks SQL
//! for unfinished matches in which the player has neither moved nor written
//! for `limits.abandon_after_hours`; each ends as abandoned: no result for
//! either side (PGN `*`), left out of the head-to-head, its timers and
//! registry entry freed, no after_match trigger or reflection, and one line
//! remembered, that it was left.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use tokio_cron_scheduler::Job;

use super::Command;
use super::{Events, MatchActor};
use crate::chess::GameEnd;
use crate::memory::{CreatedBy, MemoryType, NewMemory};
use crate::runtime::{Runtime, RuntimeError, ask};

/// How often the runtime looks: a tenth of the allowed absence, within
/// these bounds (the scheduler counts whole seconds).
const LOOK_AT_LEAST_EVERY: Duration = Duration::from_secs(600);
const LOOK_AT_MOST_EVERY: Duration = Duration::from_secs(1);

impl Runtime {
    /// Arms the periodic look for abandoned matches (none if the limit is 0).
    pub(in crate::runtime) async fn watch_for_abandoned(&self) {
        let Some(after) = self.svc.config.limits.abandon_after() else {
            return;
        };
        let every = (after / 10).clamp(LOOK_AT_MOST_EVERY, LOOK_AT_LEAST_EVERY);
        let runtime = self.clone();
        let job = Job::new_repeated_async(every, move |_, _| {
            let runtime = runtime.clone();
            Box::pin(async move {
                if let Err(e) = runtime.end_abandoned(after).await {
                    tracing::warn!("looking for abandoned matches failed: {e}");
                }
            })
        });
        let added = match job {
            Ok(job) => self.svc.scheduler.add(job).await.map(drop),
            Err(e) => Err(e),
        };
        if let Err(e) = added {
            tracing::warn!("abandoned matches will not be ended: {e}");
        }
    }

    /// Ends every match untouched by its player for `after`; how many ended.
    pub async fn end_abandoned(&self, after: Duration) -> Result<usize, RuntimeError> {
        let cutoff = Utc::now() - chrono::Duration::from_std(after).unwrap_or(chrono::Duration::MAX);
        let mut ended = 0;
        for id in self.svc.db.untouched_since(cutoff).await? {
            let inbox = match self.inbox(id).await {
                Ok(inbox) => inbox,
                // Finished, or another node runs it (and looks for itself).
                Err(RuntimeError::GameOver | RuntimeError::HeldElsewhere { .. }) => continue,
                Err(e) => {
                    tracing::warn!(match_id = %id, "an abandoned match could not be loaded: {e}");
                    continue;
                }
            };
            match ask(&inbox, |reply| Command::Abandon { cutoff, reply }).await {
                Ok(true) => ended += 1,
                Ok(false) | Err(RuntimeError::GameOver) => {}
                Err(e) => tracing::warn!(match_id = %id, "an abandoned match could not be ended: {e}"),
            }
        }
        if ended > 0 {
            tracing::info!("{ended} matches untouched for {after:?} ended as abandoned");
        }
        Ok(ended)
    }
}

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
        if let Err(e) = self.svc.memory.save(new).await {
            tracing::warn!(match_id = %self.id, "the abandoned match was not remembered: {e}");
        }
    }
}
