//! Ratings in SQL: the finished games that may count for a player's rating,
//! and the history of their rating, one row per rated game.

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::Entry;
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::store::{Db, StoreResult, parse_id, parse_ts, ts};

/// A finished game played to a result by the persona's calibrated engine at
/// its own strength, as SQL holds it; whether
/// it counts (its start position, its persona's rating) is the rating
/// module's to say.
#[derive(Debug, Clone)]
pub struct FinishedGame {
    pub match_id: MatchId,
    pub persona_id: PersonaId,
    pub user_color: String,
    pub start_fen: String,
    pub result: String,
    pub persona_elo: Option<u32>,
    pub ended_at: DateTime<Utc>,
}

const HISTORY_COLUMNS: &str = "match_id, persona_id, persona_rating, score, rating, deviation, volatility, played_at";

impl Db {
    /// A player's finished games with a result, the persona's calibrated
    /// engine at its own strength, in the order they ended.
    pub async fn games_for_rating(&self, player: PlayerId) -> StoreResult<Vec<FinishedGame>> {
        let rows = sqlx::query(
            "SELECT id, persona_id, user_color, start_fen, result, persona_elo, ended_at FROM matches \
             WHERE player_id = $1 AND status = 'finished' AND adapted = 0 AND calibrated = 1 AND ended_at IS NOT NULL \
             AND result IN ('1-0', '0-1', '1/2-1/2') ORDER BY ended_at, id",
        )
        .bind(player.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(FinishedGame {
                    match_id: parse_id("matches", r.get("id"))?,
                    persona_id: r.get("persona_id"),
                    user_color: r.get("user_color"),
                    start_fen: r.get("start_fen"),
                    result: r.get("result"),
                    persona_elo: r.get::<Option<i64>, _>("persona_elo").map(|e| e as u32),
                    ended_at: parse_ts("matches", r.get("ended_at"))?,
                })
            })
            .collect()
    }

    /// Every player with a finished game.
    pub async fn players_with_games(&self) -> StoreResult<Vec<PlayerId>> {
        let rows = sqlx::query("SELECT DISTINCT player_id FROM matches WHERE status = 'finished' ORDER BY player_id")
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(|r| parse_id("matches", r.get("player_id"))).collect()
    }

    /// A player's rating history, oldest first.
    pub async fn rating_history(&self, player: PlayerId) -> StoreResult<Vec<Entry>> {
        let rows = sqlx::query(&format!(
            "SELECT {HISTORY_COLUMNS} FROM rating_history WHERE player_id = $1 ORDER BY played_at, match_id"
        ))
        .bind(player.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(entry_from_row).collect()
    }

    /// Keeps the first `keep` rows of a player's history and puts `after`
    /// behind them, in one transaction: a late game or a rebuild rewrites
    /// the tail, an ordinary game appends. Two nodes doing the same at once
    /// write the same rows (the replay is deterministic), so a row already
    /// there is overwritten, not a conflict.
    pub async fn rewrite_rating_history(&self, player: PlayerId, keep: &[Entry], after: &[Entry]) -> StoreResult<()> {
        let mut tx = self.pool().begin().await?;
        let kept: Vec<String> = keep.iter().map(|e| e.match_id.to_string()).collect();
        let stale = sqlx::query("SELECT match_id FROM rating_history WHERE player_id = $1")
            .bind(player.to_string())
            .fetch_all(&mut *tx)
            .await?;
        for row in stale {
            let id: String = row.get("match_id");
            if !kept.contains(&id) {
                sqlx::query("DELETE FROM rating_history WHERE match_id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        for e in after {
            sqlx::query(
                "INSERT INTO rating_history (match_id, player_id, persona_id, persona_rating, score, rating, \
                 deviation, volatility, played_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (match_id) DO UPDATE SET persona_id = excluded.persona_id, \
                 persona_rating = excluded.persona_rating, score = excluded.score, rating = excluded.rating, \
                 deviation = excluded.deviation, volatility = excluded.volatility, played_at = excluded.played_at",
            )
            .bind(e.match_id.to_string())
            .bind(player.to_string())
            .bind(&e.persona_id)
            .bind(e.persona_rating)
            .bind(e.score)
            .bind(e.rating)
            .bind(e.deviation)
            .bind(e.volatility)
            .bind(ts(e.played_at))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

fn entry_from_row(r: &AnyRow) -> StoreResult<Entry> {
    Ok(Entry {
        match_id: parse_id("rating_history", r.get("match_id"))?,
        persona_id: r.get("persona_id"),
        persona_rating: r.get("persona_rating"),
        score: r.get("score"),
        rating: r.get("rating"),
        deviation: r.get("deviation"),
        volatility: r.get("volatility"),
        played_at: parse_ts("rating_history", r.get("played_at"))?,
    })
}
