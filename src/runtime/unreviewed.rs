//! The review after a game that a stop cut short: the reflection is stored
//! as the game ends, and the search for the player's mistakes runs after it,
//! off the replies (`actor/after_game.rs`). A crash in between would lose
//! the game's puzzles; so at start, the finished games of the last days
//! whose reflection is not marked reviewed are reviewed now, in the
//! background, one at a time. Puzzles are kept once per move, so two nodes
//! doing the same game keep one set.

use chrono::{Duration, Utc};

use super::actor::after_game::AfterGame;
use super::{Runtime, color_of, stored_game};
use crate::ids::MatchId;
use crate::reflection::Reflection;

/// How far back a start looks for a review cut short.
const LOOK_BACK: Duration = Duration::days(2);

impl Runtime {
    pub(super) fn review_the_unreviewed(&self) {
        let runtime = self.clone();
        tokio::spawn(async move {
            let since = Utc::now() - LOOK_BACK;
            let left = match runtime.svc.db.unreviewed_since(since).await {
                Ok(left) => left,
                Err(e) => return tracing::warn!("games whose review was cut short not looked for: {e}"),
            };
            if !left.is_empty() {
                tracing::info!("reviewing {} games whose review a stop cut short", left.len());
            }
            for (id, reflection) in left {
                runtime.review_again(id, reflection).await;
            }
        });
    }

    async fn review_again(&self, id: MatchId, reflection: Reflection) {
        let (row, game, odds) = match stored_game(&self.svc.db, id).await {
            Ok(stored) => stored,
            Err(e) => return tracing::warn!(match_id = %id, "not reviewed again: {e}"),
        };
        let svc = &self.svc;
        let after = AfterGame {
            db: svc.db.clone(),
            id,
            player: (row.player_id, row.persona_id.clone(), color_of(&row)),
            engine: svc.analyst.clone().unwrap_or_else(|| svc.engine.clone()),
            nodes: svc.config.eval_deep_nodes.max(svc.config.eval_nodes),
            game,
            odds,
            // The retelling is for the moment after the game, not a day on.
            retell: None,
        };
        after.run(reflection).await;
    }
}
