//! The consolidation job (cron from config, and after every match): merges
//! near-duplicates the write policy let through (two saves at once, edited
//! texts, a changed threshold), supersedes contradictions, and stores
//! decayed strengths. Every run is written to `consolidation_log`.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::json;

use super::Memory;
use super::policy::{self, Verdict};
use super::service::{MemoryError, MemoryService};
use super::strength;
use super::{ConsolidationRow, MemoryQuery};
use crate::embed::cosine;
use crate::ids::{MemoryId, PersonaId, PlayerId};

/// Whose memories a run looks at.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    /// Everyone with a memory created or reinforced since the last full run.
    Everyone,
    Player(PlayerId),
}

/// Details kept per run; the counts are always complete.
const MAX_DETAILS: usize = 1000;
const DECAY_PAGE: i64 = 1000;

#[derive(Default)]
struct Tally {
    merged: i64,
    superseded: i64,
    details: Vec<serde_json::Value>,
}

impl Tally {
    fn note(&mut self, action: &str, kept: MemoryId, retired: MemoryId, similarity: f32) {
        if self.details.len() < MAX_DETAILS {
            self.details.push(json!({
                "action": action, "kept": kept, "retired": retired, "similarity": similarity,
            }));
        }
    }
}

impl MemoryService {
    /// Runs one consolidation and logs it; `reason` says what started it.
    pub async fn consolidate(&self, scope: Scope, reason: &str) -> Result<ConsolidationRow, MemoryError> {
        let started_at = Utc::now();
        let (player, since) = match scope {
            Scope::Everyone => (None, self.db().last_full_consolidation().await?),
            Scope::Player(p) => (Some(p), None),
        };
        let mut tally = Tally::default();
        for (owner, persona) in self.db().owners_touched_since(player, since).await? {
            self.merge_owner(owner, &persona, started_at, &mut tally).await?;
        }
        let decayed = self.apply_decay(player, started_at).await?;
        let row = ConsolidationRow {
            started_at,
            finished_at: Utc::now(),
            reason: reason.to_string(),
            player_id: player,
            merged: tally.merged,
            superseded: tally.superseded,
            decayed,
            details: serde_json::Value::Array(tally.details),
        };
        self.db().log_consolidation(&row).await?;
        tracing::info!(
            reason,
            merged = row.merged,
            superseded = row.superseded,
            decayed = row.decayed,
            "memory consolidation done"
        );
        Ok(row)
    }

    /// Each memory's vector as the index holds it; the model runs only for
    /// one the index lacks (a player's memories would otherwise be embedded
    /// again at each of their games' ends, once the model's memo forgot them).
    async fn stored_vectors(&self, memories: &[Memory]) -> Result<Vec<Vec<f32>>, MemoryError> {
        let mut stored = self.index().vectors(memories.iter().map(|m| m.id).collect()).await?;
        let missing: Vec<String> = memories
            .iter()
            .filter(|m| !stored.contains_key(&m.id))
            .map(|m| m.content.clone())
            .collect();
        let mut embedded = self.embedder().embed_memoized(missing).await?.into_iter();
        Ok(memories
            .iter()
            .map(|m| stored.remove(&m.id).or_else(|| embedded.next()).unwrap_or_default())
            .collect())
    }

    /// Compares every pair of one player's current memories with one persona.
    async fn merge_owner(
        &self,
        player: PlayerId,
        persona: &PersonaId,
        now: DateTime<Utc>,
        tally: &mut Tally,
    ) -> Result<(), MemoryError> {
        let query = MemoryQuery {
            persona: Some(persona.clone()),
            ..MemoryQuery::default()
        };
        let mut current = self.db().player_memories(player, &query).await?;
        if current.len() < 2 {
            return Ok(());
        }
        // Oldest first: the older memory survives a merge and keeps the history.
        current.sort_by_key(|m| m.created_at);
        let vectors = self.stored_vectors(&current).await?;
        let mut retired: HashSet<MemoryId> = HashSet::new();
        for newer in 1..current.len() {
            for older in 0..newer {
                let (n, o) = (&current[newer], &current[older]);
                if retired.contains(&n.id) || retired.contains(&o.id) {
                    continue;
                }
                let similarity = cosine(&vectors[newer], &vectors[older]);
                match policy::judge(n, o, similarity, self.config()) {
                    Verdict::Duplicate => {
                        let mut merged = o.clone();
                        strength::absorb(&mut merged, n, now, self.config());
                        self.db().save_reinforcement(&merged).await?;
                        self.db()
                            .set_memory_flags(merged.id, Some(merged.pinned), Some(merged.never_recall))
                            .await?;
                        self.retire(n.id, merged.id, now).await?;
                        retired.insert(n.id);
                        tally.merged += 1;
                        tally.note("merged", o.id, n.id, similarity);
                        current[older] = merged;
                    }
                    Verdict::Contradicts => {
                        self.retire(o.id, n.id, now).await?;
                        retired.insert(o.id);
                        tally.superseded += 1;
                        tally.note("superseded", n.id, o.id, similarity);
                    }
                    Verdict::Unrelated => {}
                }
            }
        }
        Ok(())
    }

    async fn retire(&self, old: MemoryId, successor: MemoryId, at: DateTime<Utc>) -> Result<(), MemoryError> {
        self.db().insert_superseding(None, &[old], successor, at).await?;
        self.index().set_recallable(vec![old], false).await?;
        Ok(())
    }

    /// Stores each current player memory's decayed strength; returns how
    /// many changed.
    /// One player's after a match (an indexed query); everyone's on the schedule.
    async fn apply_decay(&self, player: Option<PlayerId>, now: DateTime<Utc>) -> Result<i64, MemoryError> {
        let (mut after, mut changed) = (None, 0i64);
        loop {
            let page = match player {
                Some(p) => self.db().player_memory_page(p, after, DECAY_PAGE).await?,
                None => self.db().memory_page(after, DECAY_PAGE).await?,
            };
            let Some(last) = page.last() else { break };
            after = Some(last.id);
            let updates: Vec<(MemoryId, f32)> = page
                .iter()
                .filter(|m| m.player_id.is_some() && m.valid_to.is_none())
                .map(|m| (m.id, m.strength, strength::current_strength(m, now, self.config())))
                .filter(|(_, stored, now)| (stored - now).abs() > 1e-4)
                .map(|(id, _, now)| (id, now))
                .collect();
            changed += updates.len() as i64;
            self.db().set_strengths(&updates, now).await?;
        }
        Ok(changed)
    }
}
