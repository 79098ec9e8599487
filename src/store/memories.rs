use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use super::{Db, StoreError, StoreResult, parse_id, parse_ts, ts};
use crate::ids::{MemoryId, PlayerId};
use crate::memory::model::{CreatedBy, Memory};

const COLUMNS: &str =
    "id, player_id, persona_id, memory_type, content, related_match_id, created_by, metadata, created_at";

impl Db {
    pub async fn insert_memory(&self, m: &Memory) -> StoreResult<()> {
        sqlx::query(&format!(
            "INSERT INTO memories ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
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
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn delete_memory(&self, id: MemoryId) -> StoreResult<()> {
        sqlx::query("DELETE FROM memories WHERE id = ?")
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A player's memories, optionally with one persona only, newest first.
    pub async fn player_memories(&self, player: PlayerId, persona: Option<&str>) -> StoreResult<Vec<Memory>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM memories WHERE player_id = ? AND (? IS NULL OR persona_id = ?) \
             ORDER BY created_at DESC, id"
        ))
        .bind(player.to_string())
        .bind(persona)
        .bind(persona)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(memory_from_row).collect()
    }

    pub async fn lore(&self, persona: &str) -> StoreResult<Vec<Memory>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM memories WHERE player_id IS NULL AND persona_id = ? AND created_by = 'persona_lore'"
        ))
        .bind(persona)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(memory_from_row).collect()
    }

    pub async fn memories_by_ids(&self, ids: &[MemoryId]) -> StoreResult<Vec<Memory>> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = sqlx::query(&format!("SELECT {COLUMNS} FROM memories WHERE id = ?"))
                .bind(id.to_string())
                .fetch_optional(&self.pool)
                .await?;
            if let Some(r) = row {
                out.push(memory_from_row(&r)?);
            }
        }
        Ok(out)
    }

    /// One page of all memories in id order, for rebuilding the vector index.
    pub async fn memory_page(&self, after: Option<MemoryId>, limit: i64) -> StoreResult<Vec<Memory>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM memories WHERE id > ? ORDER BY id LIMIT ?"
        ))
        .bind(after.map(|a| a.to_string()).unwrap_or_default())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(memory_from_row).collect()
    }

    pub async fn memory_count(&self) -> StoreResult<u64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM memories")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.get::<i64, _>("n") as u64)
    }
}

fn memory_from_row(r: &SqliteRow) -> StoreResult<Memory> {
    let corrupt = |detail: String| StoreError::Corrupt {
        table: "memories",
        detail,
    };
    let player: Option<String> = r.get("player_id");
    let related: Option<String> = r.get("related_match_id");
    let kind: String = r.get("memory_type");
    let by: String = r.get("created_by");
    let metadata: String = r.get("metadata");
    Ok(Memory {
        id: parse_id("memories", r.get("id"))?,
        player_id: player.map(|p| parse_id("memories", &p)).transpose()?,
        persona_id: r.get("persona_id"),
        memory_type: kind.parse().map_err(|e| corrupt(format!("{e}")))?,
        content: r.get("content"),
        related_match_id: related.map(|m| parse_id("memories", &m)).transpose()?,
        created_by: CreatedBy::parse(&by).ok_or_else(|| corrupt(format!("created_by '{by}'")))?,
        metadata: serde_json::from_str(&metadata).map_err(|e| corrupt(e.to_string()))?,
        created_at: parse_ts("memories", r.get("created_at"))?,
    })
}
