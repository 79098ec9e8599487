//! The engine's verdict on each move: White's win% after it and what it cost
//! its player. The persona's engine move is scored by the search that chose
//! it; any other move by a cheap fixed-node evaluation under a time budget,
//! so the persona's reply never waits long (past the budget the move has no odds);
//! then a deeper one on a separate engine process, after the reply, which
//! revises the stored odds and tells the clients (`odds` event).

use shakmaty::Color;
use tracing::Instrument;

use super::{Command, MatchActor};
use crate::chess::engine::Score;
use crate::chess::odds::{MoveOdds, white_pct};
use crate::events::{Odds, OddsDepth};
use crate::runtime::error::RuntimeError;
use crate::store::DomainWrite;

/// What an engine search already said about a move, each for the side to
/// move in its position: the position it was played in, and the one after it.
#[derive(Debug, Clone, Default)]
pub(super) struct KnownScores {
    pub before: Option<Score>,
    pub after: Option<Score>,
}

impl MatchActor {
    pub(super) async fn odds_after_last_move(&self, known: KnownScores) -> Option<MoveOdds> {
        let budget = self.node.settings.eval_budget;
        match tokio::time::timeout(budget, self.evaluate_last_move(known)).await {
            Ok(odds) => odds,
            Err(_) => {
                tracing::debug!(match_id = %self.id, "move evaluation over budget; no odds for this move");
                None
            }
        }
    }

    async fn evaluate_last_move(&self, known: KnownScores) -> Option<MoveOdds> {
        let moves = self.table.game().moves();
        let (last, earlier) = moves.split_last()?;
        // Before the move: the odds stored with the previous one, else the
        // search's, else evaluate.
        let stored = self.odds.after(earlier.len());
        let before_white = match (stored, known.before) {
            (Some(o), _) => o.white,
            (None, Some(score)) => white_pct(&score, last.mover == Color::White),
            (None, None) => {
                let fen = earlier
                    .last()
                    .map_or(self.table.game().start_fen(), |m| m.fen_after.as_str());
                self.white_pct(fen, last.mover).await?
            }
        };
        let score = match known.after {
            Some(known) => known,
            None => self.score(&last.fen_after).await?,
        };
        Some(MoveOdds::new(before_white, &score, last.mover == Color::White))
    }

    /// Starts the deeper evaluation of the position after `ply`, unless too
    /// many moves wait for it already; its score comes back to this actor
    /// as `Command::DeepScore`.
    pub(super) fn evaluate_deeper_later(&self, ply: usize, fen_after: &str) {
        let (Some(analyst), Some(inbox)) = (self.node.engines.analyst.clone(), self.inbox.upgrade()) else {
            return;
        };
        let (fen, nodes) = (fen_after.to_string(), self.node.settings.eval_deep_nodes);
        // Most openings pass through positions searched before: those need
        // neither a search nor a place in the queue.
        if let Some(score) = analyst.known_score(&fen, nodes) {
            self.node.engines.deep.known();
            tokio::spawn(async move { inbox.send(Command::DeepScore { ply, fen, score }).await });
            return;
        }
        let Some(waiting) = self.node.engines.deep.wait() else {
            tracing::debug!(match_id = %self.id, ply, "the deeper evaluation is behind: this move keeps its quick odds");
            return;
        };
        tokio::spawn(
            async move {
                match analyst.evaluate(&fen, nodes).await {
                    Ok(score) => {
                        waiting.checked();
                        let _ = inbox.send(Command::DeepScore { ply, fen, score }).await;
                    }
                    Err(e) => tracing::debug!("deeper evaluation failed: {e}"),
                }
            }
            .in_current_span(),
        );
    }

    /// Replaces ply `ply`'s odds with the deeper verdict, if the odds before
    /// that move are known; a verdict that says the same still marks the
    /// move checked, so a game counts what the deeper evaluation saw.
    pub(super) async fn revise_odds(&mut self, ply: usize, fen: &str, score: &Score) -> Result<(), RuntimeError> {
        let played = self
            .table
            .game()
            .moves()
            .get(ply.wrapping_sub(1))
            .filter(|m| m.fen_after == fen);
        let Some(mover) = played.map(|m| m.mover) else {
            return Ok(());
        };
        // Before the move: the previous ply's odds (revised or not), else
        // what this move's cheap odds were measured from.
        let previous = self.odds.after(ply.saturating_sub(1));
        let own = self.odds.after(ply);
        let before = previous.map(|o| o.white).or_else(|| {
            own.map(|o| match mover {
                Color::White => o.white - o.delta,
                Color::Black => o.white + o.delta,
            })
        });
        let Some(before) = before else { return Ok(()) };
        let revised = MoveOdds::new(before, score, mover == Color::White).checked_deeply();
        if !self.odds.revise(ply, revised) {
            return Ok(());
        }
        let data = Odds {
            ply,
            odds: revised,
            depth: OddsDepth::Deep,
        };
        let write = DomainWrite::Odds { ply, odds: revised };
        self.emitter.emit(data, write).await?;
        Ok(())
    }

    /// White's win% in `fen`, where `to_move` is to move.
    async fn white_pct(&self, fen: &str, to_move: Color) -> Option<f64> {
        let score = self.score(fen).await?;
        Some(white_pct(&score, to_move == Color::White))
    }

    async fn score(&self, fen: &str) -> Option<crate::chess::engine::Score> {
        let nodes = self.node.settings.eval_nodes;
        self.node
            .engines
            .play
            .evaluate(fen, nodes)
            .await
            .map_err(|e| tracing::warn!("evaluation failed: {e}"))
            .ok()
    }
}
