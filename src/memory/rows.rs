//! The memories' rows in SQL: each memory one row (its tags, reinforcements
//! and board as columns), read back into `Memory`. The store gives the
//! connection and its helpers; the memory module owns what its rows mean.

use chrono::{DateTime, Utc};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::model::{CreatedBy, Memory, MemoryType, PositionTag, RecallRecord, Reinforcement};
use crate::ids::{MatchId, MemoryId, PersonaId, PlayerId};
use crate::store::{Db, Numbered, StoreError, StoreResult, flag, parse_id, parse_ts, tags_json, ts};

const COLUMNS: &str = "id, player_id, persona_id, memory_type, content, related_match_id, created_by, metadata, \
                       created_at, importance, pinned, never_recall, recall_count, last_recalled_at, updated_at, \
                       valid_to, superseded_by, strength, decayed_at, last_seen_at, reinforcements, position_key, \
                       eco, opening, tags";

/// Filters for a player's memory list (all optional).
#[derive(Debug, Clone, Default)]
pub struct MemoryQuery {
    pub persona: Option<PersonaId>,
    pub memory_type: Option<MemoryType>,
    pub match_id: Option<MatchId>,
    pub created_from: Option<DateTime<Utc>>,
    pub created_to: Option<DateTime<Utc>>,
    pub pinned: Option<bool>,
    /// Include superseded memories (history); default: current ones only.
    pub include_superseded: bool,
}

impl Db {
    pub async fn insert_memory(&self, m: &Memory) -> StoreResult<()> {
        let mut conn = self.pool().acquire().await?;
        insert_memory(&mut conn, m).await
    }

    pub async fn memory(&self, id: MemoryId) -> StoreResult<Option<Memory>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM memories WHERE id = $1"))
            .bind(id.to_string())
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| memory_from_row(&r)).transpose()
    }

    pub async fn delete_memory(&self, id: MemoryId) -> StoreResult<()> {
        sqlx::query("DELETE FROM memories WHERE id = $1")
            .bind(id.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn set_memory_flags(
        &self,
        id: MemoryId,
        pinned: Option<bool>,
        never_recall: Option<bool>,
    ) -> StoreResult<()> {
        sqlx::query(
            "UPDATE memories SET pinned = COALESCE($1, pinned), never_recall = COALESCE($2, never_recall), \
             updated_at = $3 WHERE id = $4",
        )
        .bind(pinned.map(flag))
        .bind(never_recall.map(flag))
        .bind(ts(Utc::now()))
        .bind(id.to_string())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// A player's memories, newest first, filtered.
    pub async fn player_memories(&self, player: PlayerId, q: &MemoryQuery) -> StoreResult<Vec<Memory>> {
        let mut sql = Numbered::new(format!("SELECT {COLUMNS} FROM memories WHERE player_id = "));
        sql.text(player.to_string());
        if let Some(persona) = &q.persona {
            sql.push(" AND persona_id = ").text(persona.as_str());
        }
        if let Some(kind) = q.memory_type {
            sql.push(" AND memory_type = ").text(kind.as_str());
        }
        if let Some(m) = q.match_id {
            sql.push(" AND related_match_id = ").text(m.to_string());
        }
        if let Some(from) = q.created_from {
            sql.push(" AND created_at >= ").text(ts(from));
        }
        if let Some(to) = q.created_to {
            sql.push(" AND created_at < ").text(ts(to));
        }
        if let Some(pinned) = q.pinned {
            sql.push(" AND pinned = ").int(flag(pinned));
        }
        if !q.include_superseded {
            sql.push(" AND valid_to IS NULL");
        }
        sql.push(" ORDER BY created_at DESC, id");
        let rows = sql.query().fetch_all(self.pool()).await?;
        rows.iter().map(memory_from_row).collect()
    }

    pub async fn lore(&self, persona: &PersonaId) -> StoreResult<Vec<Memory>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM memories WHERE player_id IS NULL AND persona_id = $1 AND created_by = 'persona_lore'"
        ))
        .bind(persona)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(memory_from_row).collect()
    }

    /// The memories with these ids that still exist, in one query (recall's hot path).
    pub async fn memories_by_ids(&self, ids: &[MemoryId]) -> StoreResult<Vec<Memory>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut sql = Numbered::new(format!("SELECT {COLUMNS} FROM memories WHERE id IN ("));
        for (i, id) in ids.iter().enumerate() {
            sql.push(if i == 0 { "" } else { ", " }).text(id.to_string());
        }
        sql.push(")");
        let rows = self.read_rows(&sql).await?;
        rows.iter().map(memory_from_row).collect()
    }

    /// Replaces a memory's concept tags (`kibitz memories reindex` retags).
    pub async fn set_memory_tags(&self, id: MemoryId, tags: &[String]) -> StoreResult<()> {
        sqlx::query("UPDATE memories SET tags = $1 WHERE id = $2")
            .bind(tags_json(tags))
            .bind(id.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// One page of all memories in id order, for rebuilding the vector index.
    pub async fn memory_page(&self, after: Option<MemoryId>, limit: i64) -> StoreResult<Vec<Memory>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM memories WHERE id > $1 ORDER BY id LIMIT $2"
        ))
        .bind(after.map(|a| a.to_string()).unwrap_or_default())
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(memory_from_row).collect()
    }

    /// One page of a player's memories in id order.
    pub async fn player_memory_page(
        &self,
        player: PlayerId,
        after: Option<MemoryId>,
        limit: i64,
    ) -> StoreResult<Vec<Memory>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM memories WHERE player_id = $1 AND id > $2 ORDER BY id LIMIT $3"
        ))
        .bind(player.to_string())
        .bind(after.map(|a| a.to_string()).unwrap_or_default())
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(memory_from_row).collect()
    }

    /// The memories kept of one player (their current ones).
    pub async fn memory_count_of(&self, player: PlayerId) -> StoreResult<u64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM memories WHERE player_id = $1 AND valid_to IS NULL")
            .bind(player.to_string())
            .fetch_one(self.pool())
            .await?;
        Ok(row.get::<i64, _>("n") as u64)
    }

    pub async fn memory_count(&self) -> StoreResult<u64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM memories")
            .fetch_one(self.pool())
            .await?;
        Ok(row.get::<i64, _>("n") as u64)
    }

    pub async fn recalls(&self, id: MemoryId) -> StoreResult<Vec<RecallRecord>> {
        let rows = sqlx::query(
            "SELECT match_id, trigger, score, reason, recalled_at FROM recall_log WHERE memory_id = $1 ORDER BY id",
        )
        .bind(id.to_string())
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RecallRecord {
                    match_id: parse_id("recall_log", r.get("match_id"))?,
                    trigger: r.get("trigger"),
                    score: r.get::<f64, _>("score") as f32,
                    reason: r.get("reason"),
                    recalled_at: parse_ts("recall_log", r.get("recalled_at"))?,
                })
            })
            .collect()
    }
}

fn memory_from_row(r: &AnyRow) -> StoreResult<Memory> {
    let corrupt = |detail: String| StoreError::Corrupt {
        table: "memories",
        detail,
    };
    let opt_ts = |col: &str| -> StoreResult<Option<DateTime<Utc>>> {
        r.get::<Option<String>, _>(col)
            .map(|t| parse_ts("memories", &t))
            .transpose()
    };
    let opt_id = |col: &str| -> Option<String> { r.get::<Option<String>, _>(col) };
    let kind: String = r.get("memory_type");
    let by: String = r.get("created_by");
    let metadata: String = r.get("metadata");
    let reinforcements: String = r.get("reinforcements");
    let tags: String = r.get("tags");
    let created_at = parse_ts("memories", r.get("created_at"))?;
    Ok(Memory {
        id: parse_id("memories", r.get("id"))?,
        player_id: opt_id("player_id").map(|p| parse_id("memories", &p)).transpose()?,
        persona_id: r.get("persona_id"),
        memory_type: kind.parse().map_err(|e| corrupt(format!("{e}")))?,
        content: r.get("content"),
        related_match_id: opt_id("related_match_id")
            .map(|m| parse_id("memories", &m))
            .transpose()?,
        created_by: CreatedBy::parse(&by).ok_or_else(|| corrupt(format!("created_by '{by}'")))?,
        metadata: serde_json::from_str(&metadata).map_err(|e| corrupt(e.to_string()))?,
        created_at,
        importance: r.get::<f64, _>("importance") as f32,
        pinned: r.get::<i64, _>("pinned") != 0,
        never_recall: r.get::<i64, _>("never_recall") != 0,
        recall_count: r.get("recall_count"),
        last_recalled_at: opt_ts("last_recalled_at")?,
        updated_at: opt_ts("updated_at")?,
        valid_to: opt_ts("valid_to")?,
        superseded_by: opt_id("superseded_by").map(|m| parse_id("memories", &m)).transpose()?,
        strength: r.get::<f64, _>("strength") as f32,
        decayed_at: opt_ts("decayed_at")?,
        last_seen_at: opt_ts("last_seen_at")?.unwrap_or(created_at),
        reinforcements: serde_json::from_str(&reinforcements).map_err(|e| corrupt(e.to_string()))?,
        position: opt_id("position_key").map(|key| PositionTag {
            key,
            eco: r.get("eco"),
            opening: r.get("opening"),
        }),
        tags: serde_json::from_str(&tags).map_err(|e| corrupt(e.to_string()))?,
    })
}

pub(super) fn reinforcements_json(list: &[Reinforcement]) -> String {
    serde_json::to_string(list).expect("reinforcements serialise")
}

pub(super) async fn insert_memory(conn: &mut AnyConnection, m: &Memory) -> StoreResult<()> {
    sqlx::query(&format!(
            "INSERT INTO memories ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)"
        ))
        .bind(m.id.to_string())
        .bind(m.player_id.map(|p| p.to_string()))
        .bind(&m.persona_id)
        .bind(m.memory_type.as_str())
        .bind(&m.content)
        .bind(m.related_match_id.map(|id| id.to_string()))
        .bind(m.created_by.as_str())
        .bind(m.metadata.to_string())
        .bind(ts(m.created_at))
        .bind(f64::from(m.importance))
        .bind(flag(m.pinned))
        .bind(flag(m.never_recall))
        .bind(m.recall_count)
        .bind(m.last_recalled_at.map(ts))
        .bind(m.updated_at.map(ts))
        .bind(m.valid_to.map(ts))
        .bind(m.superseded_by.map(|id| id.to_string()))
        .bind(f64::from(m.strength))
        .bind(m.decayed_at.map(ts))
        .bind(ts(m.last_seen_at))
        .bind(reinforcements_json(&m.reinforcements))
        .bind(m.position.as_ref().map(|p| p.key.clone()))
        .bind(m.position.as_ref().and_then(|p| p.eco.clone()))
        .bind(m.position.as_ref().and_then(|p| p.opening.clone()))
        .bind(tags_json(&m.tags))
        .execute(&mut *conn)
        .await?;
    Ok(())
}
