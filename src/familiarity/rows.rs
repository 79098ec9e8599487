//! Familiarity in SQL: the games a player and a persona ended together
//! (what the record says of each), the player's lines in one of them, and
//! the familiarity history, one row per game.

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Entry, Together};
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::store::{Db, StoreResult, parse_id, parse_ts, ts};

/// A game a player and a persona ended together, as `matches` holds it.
#[derive(Debug, Clone)]
pub struct EndedGame {
    pub match_id: MatchId,
    pub ended_at: DateTime<Utc>,
    /// "1-0", "0-1", "1/2-1/2", or "*" for a game left unfinished.
    pub result: String,
    pub plies: i64,
}

const HISTORY_COLUMNS: &str = "match_id, played_at, finished, hard_fought, shared, courteous, rude, points";

impl Db {
    /// The games `player` and `persona` ended together, in the order they ended.
    pub async fn games_together(&self, player: PlayerId, persona: &PersonaId) -> StoreResult<Vec<EndedGame>> {
        let rows = sqlx::query(
            "SELECT m.id, m.ended_at, COALESCE(m.result, '*') AS result, \
             (SELECT COUNT(*) FROM moves v WHERE v.match_id = m.id) AS plies FROM matches m \
             WHERE m.player_id = $1 AND m.persona_id = $2 AND m.status = 'finished' AND m.ended_at IS NOT NULL \
             ORDER BY m.ended_at, m.id",
        )
        .bind(player.to_string())
        .bind(persona)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(EndedGame {
                    match_id: parse_id("matches", r.get("id"))?,
                    ended_at: parse_ts("matches", r.get("ended_at"))?,
                    result: r.get("result"),
                    plies: r.get("plies"),
                })
            })
            .collect()
    }

    /// What the player typed in a match, in order.
    pub async fn player_lines(&self, id: MatchId) -> StoreResult<Vec<String>> {
        let rows = sqlx::query("SELECT content FROM messages WHERE match_id = $1 AND sender = 'user' ORDER BY id")
            .bind(id.to_string())
            .fetch_all(self.pool())
            .await?;
        Ok(rows.iter().map(|r| r.get("content")).collect())
    }

    /// The familiarity history of a player with a persona, oldest first.
    pub async fn familiarity_history(&self, player: PlayerId, persona: &PersonaId) -> StoreResult<Vec<Entry>> {
        let rows = sqlx::query(&format!(
            "SELECT {HISTORY_COLUMNS} FROM familiarity_history WHERE player_id = $1 AND persona_id = $2 \
             ORDER BY played_at, match_id"
        ))
        .bind(player.to_string())
        .bind(persona)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(entry_from_row).collect()
    }

    /// Replaces the history of a player with a persona by `entries`, in one
    /// transaction. Two nodes doing so at once write the same rows (the
    /// replay is deterministic), so a row already there is overwritten.
    pub async fn rewrite_familiarity(
        &self,
        player: PlayerId,
        persona: &PersonaId,
        entries: &[Entry],
    ) -> StoreResult<()> {
        let mut tx = self.pool().begin().await?;
        sqlx::query("DELETE FROM familiarity_history WHERE player_id = $1 AND persona_id = $2")
            .bind(player.to_string())
            .bind(persona)
            .execute(&mut *tx)
            .await?;
        for e in entries {
            let g = &e.game;
            sqlx::query(
                "INSERT INTO familiarity_history (match_id, player_id, persona_id, played_at, finished, hard_fought, \
                 shared, courteous, rude, points) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                 ON CONFLICT (match_id) DO UPDATE SET played_at = excluded.played_at, finished = excluded.finished, \
                 hard_fought = excluded.hard_fought, shared = excluded.shared, courteous = excluded.courteous, \
                 rude = excluded.rude, points = excluded.points",
            )
            .bind(g.match_id.to_string())
            .bind(player.to_string())
            .bind(persona)
            .bind(ts(g.played_at))
            .bind(i64::from(g.finished))
            .bind(i64::from(g.hard_fought))
            .bind(i64::from(g.shared))
            .bind(i64::from(g.courteous))
            .bind(i64::from(g.rude))
            .bind(e.points)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every (player, persona) pair with a game ended together.
    pub async fn pairs_with_games(&self) -> StoreResult<Vec<(PlayerId, PersonaId)>> {
        let rows = sqlx::query(
            "SELECT DISTINCT player_id, persona_id FROM matches WHERE status = 'finished' \
             ORDER BY player_id, persona_id",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| Ok((parse_id("matches", r.get("player_id"))?, r.get("persona_id"))))
            .collect()
    }
}

fn entry_from_row(r: &AnyRow) -> StoreResult<Entry> {
    let count = |c: &str| r.get::<i64, _>(c).max(0) as u32;
    Ok(Entry {
        game: Together {
            match_id: parse_id("familiarity_history", r.get("match_id"))?,
            played_at: parse_ts("familiarity_history", r.get("played_at"))?,
            finished: r.get::<i64, _>("finished") != 0,
            hard_fought: r.get::<i64, _>("hard_fought") != 0,
            shared: count("shared"),
            courteous: count("courteous"),
            rude: count("rude"),
        },
        points: r.get("points"),
    })
}
