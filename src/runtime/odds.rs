//! The engine's verdict on each move: White's win% after it and what it cost
//! its player. A fixed-node evaluation under a time budget, so the persona's
//! reply never waits long; when the budget runs out the move has no odds.

use std::time::Duration;

use shakmaty::Color;

use super::actor::MatchActor;
use crate::chess::odds::{MoveOdds, white_pct};

impl MatchActor {
    pub(super) async fn odds_after_last_move(&self) -> Option<MoveOdds> {
        let budget = Duration::from_millis(self.svc.config.eval_budget_ms);
        match tokio::time::timeout(budget, self.evaluate_last_move()).await {
            Ok(odds) => odds,
            Err(_) => {
                tracing::debug!(match_id = %self.id, "move evaluation over budget; no odds for this move");
                None
            }
        }
    }

    async fn evaluate_last_move(&self) -> Option<MoveOdds> {
        let moves = self.game.moves();
        let (last, earlier) = moves.split_last()?;
        // Before the move: the odds stored with the previous one, else evaluate.
        let stored = earlier
            .len()
            .checked_sub(1)
            .and_then(|i| self.odds.get(i).copied().flatten());
        let before_white = match stored {
            Some(o) => o.white,
            None => {
                let fen = earlier.last().map_or(self.game.start_fen(), |m| m.fen_after.as_str());
                self.white_pct(fen, last.mover).await?
            }
        };
        let score = self.score(&last.fen_after).await?;
        Some(MoveOdds::new(before_white, &score, last.mover == Color::White))
    }

    /// White's win% in `fen`, where `to_move` is to move.
    async fn white_pct(&self, fen: &str, to_move: Color) -> Option<f64> {
        let score = self.score(fen).await?;
        Some(white_pct(&score, to_move == Color::White))
    }

    async fn score(&self, fen: &str) -> Option<crate::chess::engine::Score> {
        let nodes = self.svc.config.eval_nodes;
        self.svc
            .engine
            .evaluate(fen, nodes)
            .await
            .map_err(|e| tracing::warn!("evaluation failed: {e}"))
            .ok()
    }
}
