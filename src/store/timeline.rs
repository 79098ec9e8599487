//! What happened in a match, in order, read back: messages, emotions, the
//! trigger log, and the numbered event stream that subscribers replay after a
//! reconnect. They are written by `journal.rs`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;

use super::{Db, StoreResult, parse_ts};
use crate::ids::MatchId;

#[derive(Debug, Clone, Serialize)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub payload: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MessageRow {
    pub id: i64,
    pub sender: String,
    pub content: String,
    pub tone: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EmotionRow {
    pub emotion: String,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TriggerRow {
    pub trigger: String,
    pub fired_at: DateTime<Utc>,
    pub recalled_ids: Vec<String>,
    pub actions: serde_json::Value,
    pub duration_us: i64,
}

impl Db {
    pub async fn last_event_seq(&self, id: MatchId) -> StoreResult<i64> {
        let row = sqlx::query("SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE match_id = $1")
            .bind(id.to_string())
            .fetch_one(&self.pool)
            .await?;
        Ok(row.get("seq"))
    }

    pub async fn events_since(&self, id: MatchId, after: i64) -> StoreResult<Vec<EventRow>> {
        self.events_page(id, after, i64::MAX).await
    }

    /// At most `limit` of a match's events after `after`, in order: a
    /// client catching up on a long match reads it a page at a time.
    pub async fn events_page(&self, id: MatchId, after: i64, limit: i64) -> StoreResult<Vec<EventRow>> {
        let rows = sqlx::query(
            "SELECT seq, kind, payload, created_at FROM events WHERE match_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        )
        .bind(id.to_string())
        .bind(after)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        event_rows(&rows)
    }

    /// A match's events of two kinds, in order (what a resumed match reads
    /// back of itself, without the whole game's chat and moves).
    pub async fn events_of_kinds(&self, id: MatchId, kinds: [&str; 2]) -> StoreResult<Vec<EventRow>> {
        let rows = sqlx::query(
            "SELECT seq, kind, payload, created_at FROM events WHERE match_id = $1 AND kind IN ($2, $3) ORDER BY seq",
        )
        .bind(id.to_string())
        .bind(kinds[0])
        .bind(kinds[1])
        .fetch_all(&self.pool)
        .await?;
        event_rows(&rows)
    }

    pub async fn messages(&self, id: MatchId) -> StoreResult<Vec<MessageRow>> {
        let rows =
            sqlx::query("SELECT id, sender, content, tone, created_at FROM messages WHERE match_id = $1 ORDER BY id")
                .bind(id.to_string())
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| {
                Ok(MessageRow {
                    id: r.get("id"),
                    sender: r.get("sender"),
                    content: r.get("content"),
                    tone: r.get("tone"),
                    created_at: parse_ts("messages", r.get("created_at"))?,
                })
            })
            .collect()
    }

    /// The persona's latest `limit` messages in a match, oldest first: what
    /// a resumed match must not say again at once.
    pub async fn persona_said(&self, id: MatchId, limit: usize) -> StoreResult<Vec<String>> {
        let rows = sqlx::query(
            "SELECT content FROM messages WHERE match_id = $1 AND sender = 'persona' ORDER BY id DESC LIMIT $2",
        )
        .bind(id.to_string())
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().rev().map(|r| r.get("content")).collect())
    }

    pub async fn emotions(&self, id: MatchId) -> StoreResult<Vec<EmotionRow>> {
        let rows = sqlx::query("SELECT emotion, reason, created_at FROM emotions WHERE match_id = $1 ORDER BY id")
            .bind(id.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                Ok(EmotionRow {
                    emotion: r.get("emotion"),
                    reason: r.get("reason"),
                    created_at: parse_ts("emotions", r.get("created_at"))?,
                })
            })
            .collect()
    }

    /// Idle nudges given since the player last moved or wrote: a match
    /// resumed elsewhere (a restart, another node) goes on with the same
    /// chain instead of starting it over.
    pub async fn nudges_since_user_acted(&self, id: MatchId) -> StoreResult<u32> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM trigger_log t WHERE t.match_id = $1 AND t.trigger = 'idle_wait' \
             AND t.id > COALESCE((SELECT MAX(u.id) FROM trigger_log u WHERE u.match_id = $1 \
             AND u.trigger IN ('on_user_move', 'on_user_input')), 0)",
        )
        .bind(id.to_string())
        .fetch_one(&self.pool)
        .await?;
        Ok(u32::try_from(row.get::<i64, _>("n")).unwrap_or(u32::MAX))
    }

    pub async fn triggers(&self, id: MatchId) -> StoreResult<Vec<TriggerRow>> {
        let rows = sqlx::query(
            "SELECT trigger, fired_at, recalled_ids, actions, duration_us FROM trigger_log WHERE match_id = $1 ORDER BY event_seq, id",
        )
        .bind(id.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let recalled: String = r.get("recalled_ids");
                let actions: String = r.get("actions");
                Ok(TriggerRow {
                    trigger: r.get("trigger"),
                    fired_at: parse_ts("trigger_log", r.get("fired_at"))?,
                    recalled_ids: serde_json::from_str(&recalled).unwrap_or_default(),
                    actions: serde_json::from_str(&actions).unwrap_or(serde_json::Value::Null),
                    duration_us: r.get("duration_us"),
                })
            })
            .collect()
    }
}

/// Event rows as read: the payload parsed (Null if it does not parse).
fn event_rows(rows: &[sqlx::any::AnyRow]) -> StoreResult<Vec<EventRow>> {
    rows.iter()
        .map(|r| {
            let payload: String = r.get("payload");
            Ok(EventRow {
                seq: r.get("seq"),
                kind: r.get("kind"),
                payload: serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null),
                created_at: parse_ts("events", r.get("created_at"))?,
            })
        })
        .collect()
}
