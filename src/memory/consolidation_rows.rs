//! Writes of the memory write policy and the consolidation job: reinforce,
//! supersede, decay, and the log of what each consolidation run did.

use chrono::{DateTime, Utc};
use sqlx::{AnyConnection, Row};

use super::Memory;
use super::rows::{insert_memory, reinforcements_json};
use crate::ids::{MemoryId, PersonaId, PlayerId};
use crate::store::{Db, StoreResult, parse_id, parse_ts, ts};

/// One run of the consolidation job, as logged.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ConsolidationRow {
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub reason: String,
    pub player_id: Option<PlayerId>,
    pub merged: i64,
    pub superseded: i64,
    pub decayed: i64,
    /// [{action, kept, retired, score}]
    pub details: serde_json::Value,
}

impl Db {
    /// Inserts `new` and retires `old` as superseded by `successor`, atomically.
    pub async fn insert_superseding(
        &self,
        new: Option<&Memory>,
        old: &[MemoryId],
        successor: MemoryId,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        let mut tx = self.pool().begin().await?;
        if let Some(m) = new {
            insert_memory(&mut tx, m).await?;
        }
        retire(&mut tx, old, successor, at).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores a reinforced memory's strength, sources and times.
    pub async fn save_reinforcement(&self, m: &Memory) -> StoreResult<()> {
        sqlx::query(
            "UPDATE memories SET strength = $1, decayed_at = $2, last_seen_at = $3, importance = $4, \
             reinforcements = $5 WHERE id = $6",
        )
        .bind(f64::from(m.strength))
        .bind(m.decayed_at.map(ts))
        .bind(ts(m.last_seen_at))
        .bind(f64::from(m.importance))
        .bind(reinforcements_json(&m.reinforcements))
        .bind(m.id.to_string())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Stores decayed strengths as of `at`, in one transaction.
    pub async fn set_strengths(&self, changes: &[(MemoryId, f32)], at: DateTime<Utc>) -> StoreResult<()> {
        let mut tx = self.pool().begin().await?;
        let at = ts(at);
        for (id, strength) in changes {
            sqlx::query("UPDATE memories SET strength = $1, decayed_at = $2 WHERE id = $3")
                .bind(f64::from(*strength))
                .bind(&at)
                .bind(id.to_string())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// (player, persona) pairs with a current memory created or reinforced
    /// since `since`, of one player or of everyone.
    pub async fn owners_touched_since(
        &self,
        player: Option<PlayerId>,
        since: Option<DateTime<Utc>>,
    ) -> StoreResult<Vec<(PlayerId, PersonaId)>> {
        // One player's goes by the owner index (every game's end asks);
        // everyone's (the periodic job) reads the whole table.
        let since = since.map(ts).unwrap_or_default();
        let query = match player {
            Some(p) => sqlx::query(
                "SELECT DISTINCT player_id, persona_id FROM memories WHERE player_id = $1 AND valid_to IS NULL \
                 AND COALESCE(last_seen_at, created_at) >= $2 ORDER BY persona_id",
            )
            .bind(p.to_string())
            .bind(since),
            None => sqlx::query(
                "SELECT DISTINCT player_id, persona_id FROM memories WHERE player_id IS NOT NULL \
                 AND valid_to IS NULL AND COALESCE(last_seen_at, created_at) >= $1 ORDER BY player_id, persona_id",
            )
            .bind(since),
        };
        let rows = query.fetch_all(self.pool()).await?;
        rows.iter()
            .map(|r| Ok((parse_id("memories", r.get("player_id"))?, r.get("persona_id"))))
            .collect()
    }

    pub async fn log_consolidation(&self, row: &ConsolidationRow) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO consolidation_log (started_at, finished_at, reason, player_id, merged, superseded, decayed, \
             details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(ts(row.started_at))
        .bind(ts(row.finished_at))
        .bind(&row.reason)
        .bind(row.player_id.map(|p| p.to_string()))
        .bind(row.merged)
        .bind(row.superseded)
        .bind(row.decayed)
        .bind(row.details.to_string())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// When the last run over everyone started.
    pub async fn last_full_consolidation(&self) -> StoreResult<Option<DateTime<Utc>>> {
        let row = sqlx::query("SELECT MAX(started_at) AS at FROM consolidation_log WHERE player_id IS NULL")
            .fetch_one(self.pool())
            .await?;
        let at: Option<String> = row.get("at");
        at.map(|t| parse_ts("consolidation_log", &t)).transpose()
    }

    /// The latest runs, newest first.
    pub async fn consolidations(&self, limit: i64) -> StoreResult<Vec<ConsolidationRow>> {
        let rows = sqlx::query(
            "SELECT started_at, finished_at, reason, player_id, merged, superseded, decayed, details \
             FROM consolidation_log ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                let player: Option<String> = r.get("player_id");
                let details: String = r.get("details");
                Ok(ConsolidationRow {
                    started_at: parse_ts("consolidation_log", r.get("started_at"))?,
                    finished_at: parse_ts("consolidation_log", r.get("finished_at"))?,
                    reason: r.get("reason"),
                    player_id: player.map(|p| parse_id("consolidation_log", &p)).transpose()?,
                    merged: r.get("merged"),
                    superseded: r.get("superseded"),
                    decayed: r.get("decayed"),
                    details: serde_json::from_str(&details).unwrap_or_default(),
                })
            })
            .collect()
    }
}

async fn retire(conn: &mut AnyConnection, old: &[MemoryId], successor: MemoryId, at: DateTime<Utc>) -> StoreResult<()> {
    for id in old {
        sqlx::query("UPDATE memories SET valid_to = $1, superseded_by = $2 WHERE id = $3 AND valid_to IS NULL")
            .bind(ts(at))
            .bind(successor.to_string())
            .bind(id.to_string())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
