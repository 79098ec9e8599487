//! After the reflection is stored and announced, off the match's replies:
//! the player's mistakes are searched for their better moves and kept as
//! puzzles (`puzzles`), the reflection's key moments get those moves, and
//! then a language model, if there is one, retells the reflection. One
//! task, in that order, so the retelling never writes over the moves.

use std::sync::Arc;

use shakmaty::Color;

use crate::chess::Game;
use crate::chess::engine::Engine;
use crate::chess::odds::MoveOdds;
use crate::config::RoleConfig;
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::llm::{ChatModel, Session};
use crate::personas::Persona;
use crate::puzzles;
use crate::reflection::{self, Reflection};
use crate::store::Db;

pub(in crate::runtime) struct AfterGame {
    pub db: Db,
    pub id: MatchId,
    /// The player, the persona, and the player's colour.
    pub player: (PlayerId, PersonaId, Color),
    pub engine: Arc<dyn Engine>,
    pub nodes: u64,
    pub game: Game,
    pub odds: Vec<Option<MoveOdds>>,
    pub retell: Option<(Arc<Session>, Arc<Persona>, RoleConfig)>,
}

impl AfterGame {
    pub async fn run(self, written: Reflection) {
        let written = self.review(written).await;
        let Some((session, persona, sampling)) = &self.retell else {
            return;
        };
        let Some(summary) = reflection::retell(session.as_ref(), persona, &written, *sampling).await else {
            return;
        };
        let retold = Reflection {
            summary,
            written_by: session.describe(),
            ..written
        };
        if let Err(e) = self.db.save_reflection(self.id, &retold).await {
            tracing::warn!(match_id = %self.id, "retold reflection not saved: {e}");
        }
    }

    /// The puzzles kept, and the reflection with its better moves (as it
    /// was if the engine or the store failed).
    async fn review(&self, mut written: Reflection) -> Reflection {
        let (player, persona, colour) = &self.player;
        let found = match puzzles::find(self.engine.as_ref(), self.nodes, &self.game, &self.odds, *colour).await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(match_id = %self.id, "no puzzles from this game: {e}");
                return written;
            }
        };
        if let Err(e) = self.db.save_puzzles((*player, persona, self.id), &found).await {
            // Not marked reviewed: the next start tries again.
            tracing::warn!(match_id = %self.id, "this game's puzzles were not kept: {e}");
            return written;
        }
        for k in &mut written.key_moments {
            if let Some(f) = found.iter().find(|f| f.ply == k.ply) {
                k.better = Some(f.solution_san.clone());
            }
        }
        written.reviewed = true;
        if let Err(e) = self.db.save_reflection(self.id, &written).await {
            tracing::warn!(match_id = %self.id, "the key moments' better moves were not kept: {e}");
        }
        tracing::info!(match_id = %self.id, puzzles = found.len(), "game reviewed");
        written
    }
}
