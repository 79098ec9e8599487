//! A player's rating as the club shows it: brought up to date with their
//! games, with its history, its progress, and which personas promise a fair
//! game; and the strength a persona adapts to for a player who asks.

use serde::Serialize;

use super::{Runtime, RuntimeError};
use crate::ids::PlayerId;
use crate::rating::{self, Entry, Pairing, Progress};

/// `GET /api/players/{id}/rating`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PlayerRating {
    pub player_id: PlayerId,
    /// 1500 with no rated game.
    pub rating: f64,
    /// How sure the rating is (350: not at all).
    pub deviation: f64,
    pub volatility: f64,
    pub rated_games: usize,
    /// Fewer than five rated games.
    pub provisional: bool,
    /// The facts of its progress (none before the first rated game).
    pub progress: Option<Progress>,
    /// The rating after each rated game, oldest first.
    pub history: Vec<Entry>,
    /// Each persona's promise: expected score, fair or not, and why.
    pub pairings: Vec<Pairing>,
}

impl Runtime {
    pub async fn player_rating(&self, player: PlayerId) -> Result<PlayerRating, RuntimeError> {
        self.player(player).await?;
        let history = self.svc.records().rating_history(player).await?;
        let now = rating::current(&history);
        let pairings = self
            .svc
            .personas
            .list()
            .iter()
            .map(|p| rating::pairing(now, history.len(), &p.id, &p.name, p.elo))
            .collect();
        Ok(PlayerRating {
            player_id: player,
            rating: now.rating,
            deviation: now.deviation,
            volatility: now.volatility,
            rated_games: history.len(),
            provisional: history.len() < rating::PROVISIONAL_GAMES,
            progress: rating::progress::progress(&history, chrono::Utc::now()),
            history,
            pairings,
        })
    }
}
