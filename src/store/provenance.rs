//! Where a memory's words went, and what they were before an edit: the
//! record that lets erasure rewrite exactly the owner's rows that quote or
//! used a memory (migration 0008).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;

use super::script::Script;
use super::{Arg, Db, StoreResult, parse_ts, ts};
use crate::ids::{MatchId, MemoryId};

/// One turn of a match that quoted or used a memory: the match's events
/// `first_seq..=last_seq` (with the messages and trigger log row they carry)
/// and, because a model's thread is append-only, the match's LLM calls and
/// recall log from the turn on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub memory_id: MemoryId,
    pub first_seq: i64,
    pub last_seq: i64,
    /// The player's chat event the memory was made from, if any: its words
    /// are a copy of the memory too.
    pub source_seq: Option<i64>,
}

/// A memory's text before an edit replaced it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MemoryVersion {
    pub content: String,
    pub replaced_at: DateTime<Utc>,
}

/// Writes a turn's traces inside the caller's batch (the trigger log's), so a
/// row that quotes a memory is never committed without its trace.
pub(crate) fn trace_statements(script: &mut Script, match_id: MatchId, at: DateTime<Utc>, traces: &[Trace]) {
    if traces.is_empty() {
        return;
    }
    let (at, match_id) = (ts(at), match_id.to_string());
    for t in traces {
        script.insert(
            "INSERT INTO memory_traces (memory_id, match_id, first_seq, last_seq, source_seq, at) VALUES ",
            [
                Arg::text(t.memory_id.to_string()),
                Arg::text(match_id.as_str()),
                Arg::Int(t.first_seq),
                Arg::Int(t.last_seq),
                Arg::opt_int(t.source_seq),
                Arg::text(at.as_str()),
            ],
        );
    }
}

impl Db {
    /// Replaces a memory's text, keeping the one it had as a version.
    pub async fn update_memory_content(&self, id: MemoryId, content: &str, tags: &[String]) -> StoreResult<()> {
        let now = ts(Utc::now());
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO memory_versions (memory_id, content, replaced_at) \
             SELECT id, content, $1 FROM memories WHERE id = $2 AND content <> $3",
        )
        .bind(&now)
        .bind(id.to_string())
        .bind(content)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE memories SET content = $1, updated_at = $2, tags = $3 WHERE id = $4")
            .bind(content)
            .bind(&now)
            .bind(super::tags_json(tags))
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A memory's earlier texts, oldest first.
    pub async fn memory_versions(&self, id: MemoryId) -> StoreResult<Vec<MemoryVersion>> {
        let rows = sqlx::query("SELECT content, replaced_at FROM memory_versions WHERE memory_id = $1 ORDER BY id")
            .bind(id.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                Ok(MemoryVersion {
                    content: r.try_get("content")?,
                    replaced_at: parse_ts("memory_versions", &r.try_get::<String, _>("replaced_at")?)?,
                })
            })
            .collect()
    }

    /// The player's own words each memory was made from (the chat events
    /// its traces name), for erasure.
    pub async fn memory_sources(&self, id: MemoryId) -> StoreResult<Vec<String>> {
        let rows = sqlx::query(
            "SELECT e.payload FROM memory_traces t JOIN events e \
             ON e.match_id = t.match_id AND e.seq = t.source_seq WHERE t.memory_id = $1",
        )
        .bind(id.to_string())
        .fetch_all(&self.pool)
        .await?;
        let mut sources = Vec::new();
        for row in rows {
            let payload: String = row.try_get(0)?;
            let doc: serde_json::Value = serde_json::from_str(&payload).unwrap_or_default();
            if let Some(words) = doc["content"].as_str() {
                sources.push(words.to_string());
            }
        }
        Ok(sources)
    }
}
