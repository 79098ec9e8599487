//! The learned models' reading of recall's candidates: the board model's
//! probability for each of the player's memories at a moment at the board
//! (and the trace it is fitted on), and a chat line's nearness to each of
//! the player's memories for the relevance model.

use std::collections::HashMap;

use super::relevance;
use super::situation::Situation;
use super::trace::Traced;
use super::{Subconscious, fuse};
use crate::embed::cosine;
use crate::ids::MemoryId;
use crate::memory::strength::LiveBoard;
use crate::memory::{MemoryError, Recalled};
use crate::triggers::{GameContext, Trigger};

impl Subconscious {
    /// The board model's probability for each of the player's memories
    /// found at a moment at the board (None without `model`), and the
    /// candidates kept in the trace if one is on. Memories found by the
    /// move's words alone get their real nearness to the moment first.
    pub(super) async fn weigh_at_board(
        &self,
        query: &str,
        found: &mut [Recalled],
        (trigger, ctx, situation, board): (&Trigger, &GameContext, &Situation, &LiveBoard),
        model: Option<&relevance::board::BoardRelevance>,
    ) -> Result<Option<HashMap<MemoryId, f32>>, MemoryError> {
        self.memory.measure_similarity(query, found).await?;
        let weighed = fuse::board_candidates(found, situation, board, &self.config);
        let p = model.map(|model| {
            let candidates: Vec<relevance::board::Candidate> = weighed.iter().map(|(_, c)| c.clone()).collect();
            let at = |i| relevance::board::features(trigger.kind, &candidates, i);
            weighed
                .iter()
                .enumerate()
                .map(|(i, (id, _))| (*id, model.p_of(&at(i))))
                .collect()
        });
        // Built only while a trace is on: every move at the board passes here.
        if self.trace.is_on() {
            self.trace.keep(Traced {
                match_id: ctx.match_id,
                trigger: trigger.kind,
                candidates: weighed,
                cues: situation.cues.iter().map(|c| (c.tag.clone(), c.weight)).collect(),
                query: query.to_string(),
            });
        }
        Ok(p)
    }

    /// How near a chat line is to each of the player's memories found for
    /// it, as the relevance model reads nearness (`relevance::nearness`);
    /// and, in the same read of their vectors, the similarity of those found
    /// by words alone (`MemoryService::measure_similarity`'s work).
    pub(super) async fn nearness(
        &self,
        text: &str,
        found: &mut [Recalled],
        model: &relevance::Relevance,
    ) -> Result<HashMap<MemoryId, f32>, MemoryError> {
        let wanted = found
            .iter()
            .filter(|r| r.memory.player_id.is_some() || r.similarity == 0.0)
            .map(|r| r.memory.id);
        let (line, vectors) = self.memory.vectors_with(text, wanted.collect()).await?;
        let carried = model.carry(&line);
        let mut near = HashMap::new();
        for r in found.iter_mut() {
            let Some(v) = vectors.get(&r.memory.id) else { continue };
            if r.similarity == 0.0 {
                r.similarity = cosine(&line, v);
            }
            if r.memory.player_id.is_some() {
                near.insert(r.memory.id, relevance::nearness(&line, &carried, v));
            }
        }
        Ok(near)
    }
}
