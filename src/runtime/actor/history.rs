//! What the persona knows of its earlier games with this player, read
//! from SQL at the start and the end of a match: the results, the streak,
//! the families the player keeps choosing with this colour, and the last
//! game (its colour, opening and result).

use super::MatchActor;
use crate::chess::Game;
use crate::chess::openings::book;
use crate::familiarity::Familiarity;
use crate::runtime::error::RuntimeError;
use crate::store::MatchRow;
use crate::triggers::{LastGame, MatchHistory, UsualOpening};

/// How many of the player's latest games with this match's colour tell
/// their usual openings.
const USUAL_OPENING_GAMES: usize = 10;

impl MatchActor {
    pub(in crate::runtime) async fn load_history(&self) -> Result<MatchHistory, RuntimeError> {
        let rows = self
            .node
            .db
            .finished_matches(self.player.id, &self.persona.id, 50)
            .await?;
        let results: Vec<Option<bool>> = rows.iter().map(user_result).collect();
        Ok(MatchHistory {
            usual_openings: self.usual_openings(&rows).await?,
            last_game: match rows.first() {
                Some(row) => Some(self.last_game(row).await?),
                None => None,
            },
            // The rating is told, never needed: a match starts without it.
            rating: self.standing().await.unwrap_or_else(|e| {
                tracing::warn!(match_id = %self.id, "no rating facts for this match: {e}");
                Default::default()
            }),
            familiarity: self.familiarity().await,
            played_today: ended_today(&rows, chrono::Utc::now().date_naive()),
            ..MatchHistory::from_results(&results)
        })
    }

    /// How well the persona knows the player; like the rating, told and
    /// never needed: a match starts without it.
    async fn familiarity(&self) -> Familiarity {
        let known = self
            .node
            .records
            .familiarity(self.player.id, &self.player.name, &self.persona)
            .await;
        known.unwrap_or_else(|e| {
            tracing::warn!(match_id = %self.id, "no familiarity for this match: {e}");
            Familiarity::default()
        })
    }

    /// The game a match row stands for, replayed from its moves; None (and
    /// a warning) if it does not replay.
    async fn replayed(&self, row: &MatchRow) -> Result<Option<Game>, RuntimeError> {
        let ucis: Vec<String> = self.node.db.moves(row.id).await?.into_iter().map(|m| m.uci).collect();
        Ok(match Game::replay(&row.start_fen, &ucis) {
            Ok(game) => Some(game),
            Err(e) => {
                tracing::warn!(match_id = %row.id, "a stored game does not replay: {e}");
                None
            }
        })
    }

    /// The families the player chose in their latest games (from the start
    /// position) with the colour they have now.
    async fn usual_openings(&self, finished: &[MatchRow]) -> Result<Vec<UsualOpening>, RuntimeError> {
        let colour = if self.table.user().is_white() { "white" } else { "black" };
        let mut chosen = Vec::new();
        for row in finished
            .iter()
            .filter(|r| r.user_color == colour)
            .take(USUAL_OPENING_GAMES)
        {
            if let Some(game) = self.replayed(row).await?.filter(Game::is_standard_start) {
                chosen.push(book().chosen_by(&game, self.table.user()).map(|f| f.name.clone()));
            }
        }
        Ok(UsualOpening::count(&chosen))
    }

    async fn last_game(&self, row: &MatchRow) -> Result<LastGame, RuntimeError> {
        let game = self.replayed(row).await?;
        let opening = game
            .as_ref()
            .filter(|g| g.is_standard_start())
            .and_then(|g| book().classify(g))
            .map(|o| o.name.clone());
        Ok(LastGame {
            user_color: row.user_color.clone(),
            opening,
            user_won: user_result(row),
            termination: row.termination.clone().unwrap_or_default().replace('_', " "),
            moves: game.map_or(0, |g| g.moves().len().div_ceil(2)),
        })
    }
}

/// Some(true) if the player won, Some(false) if they lost, None for a draw.
fn user_result(r: &MatchRow) -> Option<bool> {
    match r.result.as_deref() {
        Some("1-0") => Some(r.user_color == "white"),
        Some("0-1") => Some(r.user_color == "black"),
        _ => None,
    }
}

/// How many of the finished games ended on `today` (UTC).
fn ended_today(finished: &[MatchRow], today: chrono::NaiveDate) -> u32 {
    let today = |r: &&MatchRow| r.ended_at.is_some_and(|at| at.date_naive() == today);
    finished.iter().filter(today).count() as u32
}
