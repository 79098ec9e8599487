//! What happens in a match, in order: messages, emotions, the trigger log,
//! and the numbered event stream that subscribers replay after a reconnect.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;

use super::memories::{RecallEntry, insert_recalls};
use super::{Db, StoreResult, parse_ts, ts};
use crate::chess::odds::MoveOdds;
use crate::ids::MatchId;

/// The domain row an event stands for, written in the same transaction.
pub enum DomainWrite<'a> {
    Move {
        ply: usize,
        uci: &'a str,
        san: &'a str,
        side: &'a str,
        fen_after: &'a str,
        odds: Option<MoveOdds>,
    },
    Message {
        sender: &'a str,
        content: &'a str,
        tone: Option<&'a str>,
    },
    Emotion {
        emotion: &'a str,
        reason: Option<&'a str>,
    },
    DrawOffer {
        by: Option<&'a str>,
    },
    Finish {
        result: &'a str,
        termination: &'a str,
    },
    /// A deeper evaluation revised a stored move's odds.
    Odds {
        ply: usize,
        odds: MoveOdds,
    },
    Nothing,
}

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
    /// Writes a domain row and its numbered event atomically: either both
    /// exist after a crash or neither does.
    pub async fn append_event(
        &self,
        id: MatchId,
        seq: i64,
        kind: &str,
        payload: &serde_json::Value,
        write: DomainWrite<'_>,
    ) -> StoreResult<DateTime<Utc>> {
        let now = Utc::now();
        let mid = id.to_string();
        let mut tx = self.pool.begin().await?;
        match write {
            DomainWrite::Move {
                ply,
                uci,
                san,
                side,
                fen_after,
                odds,
            } => {
                sqlx::query(
                    "INSERT INTO moves (match_id, ply, uci, san, side, fen_after, win_pct_white, win_pct_delta, \
                     created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(&mid)
                .bind(ply as i64)
                .bind(uci)
                .bind(san)
                .bind(side)
                .bind(fen_after)
                .bind(odds.map(|o| o.white))
                .bind(odds.map(|o| o.delta))
                .bind(ts(now))
                .execute(&mut *tx)
                .await?;
            }
            DomainWrite::Odds { ply, odds } => {
                sqlx::query("UPDATE moves SET win_pct_white = $1, win_pct_delta = $2 WHERE match_id = $3 AND ply = $4")
                    .bind(odds.white)
                    .bind(odds.delta)
                    .bind(&mid)
                    .bind(ply as i64)
                    .execute(&mut *tx)
                    .await?;
            }
            DomainWrite::Message { sender, content, tone } => {
                sqlx::query(
                    "INSERT INTO messages (match_id, sender, content, tone, created_at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&mid)
                .bind(sender)
                .bind(content)
                .bind(tone)
                .bind(ts(now))
                .execute(&mut *tx)
                .await?;
            }
            DomainWrite::Emotion { emotion, reason } => {
                sqlx::query("INSERT INTO emotions (match_id, emotion, reason, created_at) VALUES ($1, $2, $3, $4)")
                    .bind(&mid)
                    .bind(emotion)
                    .bind(reason)
                    .bind(ts(now))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("UPDATE matches SET emotion = $1 WHERE id = $2")
                    .bind(emotion)
                    .bind(&mid)
                    .execute(&mut *tx)
                    .await?;
            }
            DomainWrite::DrawOffer { by } => {
                sqlx::query("UPDATE matches SET draw_offer = $1 WHERE id = $2")
                    .bind(by)
                    .bind(&mid)
                    .execute(&mut *tx)
                    .await?;
            }
            DomainWrite::Finish { result, termination } => {
                sqlx::query(
                    "UPDATE matches SET status = 'finished', result = $1, termination = $2, draw_offer = NULL, \
                     ended_at = $3 WHERE id = $4",
                )
                .bind(result)
                .bind(termination)
                .bind(ts(now))
                .bind(&mid)
                .execute(&mut *tx)
                .await?;
            }
            DomainWrite::Nothing => {}
        }
        sqlx::query("INSERT INTO events (match_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(&mid)
            .bind(seq)
            .bind(kind)
            .bind(payload.to_string())
            .bind(ts(now))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(now)
    }

    pub async fn last_event_seq(&self, id: MatchId) -> StoreResult<i64> {
        let row = sqlx::query("SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE match_id = $1")
            .bind(id.to_string())
            .fetch_one(&self.pool)
            .await?;
        Ok(row.get("seq"))
    }

    pub async fn events_since(&self, id: MatchId, after: i64) -> StoreResult<Vec<EventRow>> {
        let rows = sqlx::query(
            "SELECT seq, kind, payload, created_at FROM events WHERE match_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(id.to_string())
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
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

    /// The trigger's log row and its recalls, in one transaction.
    pub async fn log_trigger(
        &self,
        id: MatchId,
        trigger: &str,
        fired_at: DateTime<Utc>,
        recalls: &[RecallEntry],
        actions: &serde_json::Value,
        duration_us: i64,
    ) -> StoreResult<()> {
        let recalled_ids: Vec<String> = recalls.iter().map(|(id, _, _)| id.to_string()).collect();
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO trigger_log (match_id, trigger, fired_at, recalled_ids, actions, duration_us) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(id.to_string())
        .bind(trigger)
        .bind(ts(fired_at))
        .bind(serde_json::to_string(&recalled_ids).unwrap_or_else(|_| "[]".into()))
        .bind(actions.to_string())
        .bind(duration_us)
        .execute(&mut *tx)
        .await?;
        insert_recalls(&mut tx, id, trigger, recalls).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn triggers(&self, id: MatchId) -> StoreResult<Vec<TriggerRow>> {
        let rows = sqlx::query(
            "SELECT trigger, fired_at, recalled_ids, actions, duration_us FROM trigger_log WHERE match_id = $1 ORDER BY id",
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
