//! Reflections after matches, and what a match taught the persona.

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Learned, Reflection};
use crate::ids::{MatchId, PlayerId};
use crate::store::{Db, StoreError, StoreResult, ts};

impl Db {
    pub async fn save_reflection(&self, id: MatchId, r: &Reflection) -> StoreResult<()> {
        let body = serde_json::to_string(r).map_err(corrupt)?;
        let sql = "INSERT INTO reflections (match_id, body, written_by, created_at) VALUES ($1, $2, $3, $4) \
                   ON CONFLICT (match_id) DO UPDATE SET body = excluded.body, written_by = excluded.written_by";
        sqlx::query(sql)
            .bind(id.to_string())
            .bind(body)
            .bind(&r.written_by)
            .bind(ts(Utc::now()))
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn reflection(&self, id: MatchId) -> StoreResult<Option<Reflection>> {
        let row = sqlx::query("SELECT body FROM reflections WHERE match_id = $1")
            .bind(id.to_string())
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| {
            let body: String = r.try_get("body")?;
            serde_json::from_str(&body).map_err(corrupt)
        })
        .transpose()
    }

    /// The reflections written since `since` whose review after the game
    /// did not run (a stop cut it short), with their match ids.
    pub async fn unreviewed_since(&self, since: DateTime<Utc>) -> StoreResult<Vec<(MatchId, Reflection)>> {
        let rows = sqlx::query("SELECT match_id, body FROM reflections WHERE created_at >= $1")
            .bind(ts(since))
            .fetch_all(self.pool())
            .await?;
        let all: StoreResult<Vec<(MatchId, Reflection)>> = rows.iter().map(read_row).collect();
        Ok(all?.into_iter().filter(|(_, r)| !r.reviewed).collect())
    }

    /// A player's reflections, newest first, with their match ids.
    pub async fn reflections_of(&self, player: PlayerId, limit: i64) -> StoreResult<Vec<(MatchId, Reflection)>> {
        let rows = sqlx::query(
            "SELECT r.match_id, r.body FROM reflections r JOIN matches m ON m.id = r.match_id \
             WHERE m.player_id = $1 ORDER BY r.created_at DESC LIMIT $2",
        )
        .bind(player.to_string())
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(read_row).collect()
    }

    /// Memories made or reinforced in this match that are still current.
    pub async fn learned_in(&self, id: MatchId) -> StoreResult<Vec<Learned>> {
        let rows = sqlx::query(
            "SELECT id, content, memory_type FROM memories WHERE related_match_id = $1 AND valid_to IS NULL \
             ORDER BY created_at",
        )
        .bind(id.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Learned {
                    memory_id: r.try_get("id")?,
                    content: r.try_get("content")?,
                    memory_type: r.try_get("memory_type")?,
                })
            })
            .collect()
    }
}

fn corrupt(detail: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        table: "reflections",
        detail: detail.to_string(),
    }
}

/// A reflection's row: its match id and body.
fn read_row(r: &AnyRow) -> StoreResult<(MatchId, Reflection)> {
    let id: String = r.try_get("match_id")?;
    let body: String = r.try_get("body")?;
    let id = id.parse().map_err(|_| corrupt(format!("match id {id}")))?;
    let reflection = serde_json::from_str(&body).map_err(corrupt)?;
    Ok((id, reflection))
}
