//! The LLM call log: accounting (tokens, latency, errors) and the per-match,
//! per-role conversation, append-only.

use async_trait::async_trait;
use chrono::Utc;
use sqlx::Row;

use super::{Db, StoreResult, ts};
use crate::ids::MatchId;
use crate::llm::{CallLog, CallRecord};

#[derive(Debug, Clone)]
pub struct LlmCallRow {
    pub role: String,
    pub endpoint: String,
    pub model: String,
    pub request: String,
    pub response: String,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    /// Of the prompt tokens, those the endpoint had cached.
    pub cached_tokens: i64,
    pub latency_ms: i64,
    pub error: Option<String>,
    pub created_at: String,
}

impl Db {
    pub async fn record_llm_call(&self, c: &CallRecord) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO llm_calls (match_id, role, endpoint, model, request, response, prompt_tokens, \
             completion_tokens, cached_tokens, latency_ms, error, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        )
        .bind(c.match_id.as_deref())
        .bind(c.role)
        .bind(&c.endpoint)
        .bind(&c.model)
        .bind(&c.request)
        .bind(&c.response)
        .bind(c.usage.prompt_tokens as i64)
        .bind(c.usage.completion_tokens as i64)
        .bind(c.usage.cached_tokens as i64)
        .bind(c.latency_ms as i64)
        .bind(c.error.as_deref())
        .bind(ts(Utc::now()))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A match's LLM calls in order (all roles).
    pub async fn llm_calls(&self, id: MatchId) -> StoreResult<Vec<LlmCallRow>> {
        let rows = sqlx::query(
            "SELECT role, endpoint, model, request, response, prompt_tokens, completion_tokens, cached_tokens, \
             latency_ms, error, created_at FROM llm_calls WHERE match_id = $1 ORDER BY id",
        )
        .bind(id.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(LlmCallRow {
                    role: r.try_get("role")?,
                    endpoint: r.try_get("endpoint")?,
                    model: r.try_get("model")?,
                    request: r.try_get("request")?,
                    response: r.try_get("response")?,
                    prompt_tokens: r.try_get("prompt_tokens")?,
                    completion_tokens: r.try_get("completion_tokens")?,
                    cached_tokens: r.try_get("cached_tokens")?,
                    latency_ms: r.try_get("latency_ms")?,
                    error: r.try_get("error")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }
}

#[async_trait]
impl CallLog for Db {
    async fn record(&self, call: CallRecord) {
        if let Err(e) = self.record_llm_call(&call).await {
            tracing::warn!("LLM call not recorded: {e}");
        }
    }
}
