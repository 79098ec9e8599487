//! Admin-only routes: the memory consolidation log, a run on demand, and a
//! match's LLM call log.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::ids::PlayerId;
use crate::memory::Scope;
use crate::server::auth::Caller;
use crate::server::extract::{ApiJson, ApiQuery};
use crate::server::{AppState, error::ApiError};
use crate::store::{ConsolidationRow, LlmCallRow};

fn admin_only(caller: Caller) -> Result<(), ApiError> {
    match caller {
        Caller::Admin => Ok(()),
        Caller::Player(_) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "admin token required",
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    limit: Option<i64>,
}

pub async fn consolidations(
    State(app): State<AppState>,
    caller: Caller,
    ApiQuery(q): ApiQuery<LogQuery>,
) -> Result<Json<Vec<ConsolidationRow>>, ApiError> {
    admin_only(caller)?;
    let limit = q.limit.unwrap_or(20).clamp(1, 500);
    Ok(Json(app.runtime.services().db.consolidations(limit).await?))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ConsolidateBody {
    player: Option<PlayerId>,
}

pub async fn consolidate(
    State(app): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<ConsolidateBody>,
) -> Result<Json<ConsolidationRow>, ApiError> {
    admin_only(caller)?;
    let scope = match body.player {
        Some(p) => {
            app.runtime.player(p).await?;
            Scope::Player(p)
        }
        None => Scope::Everyone,
    };
    Ok(Json(app.runtime.services().memory.consolidate(scope, "manual").await?))
}

/// A match's LLM calls: the per-role conversation log with tokens and
/// latency. Admin only: answers hold the agents' private thinking.
pub async fn llm_calls(
    State(app): State<AppState>,
    caller: Caller,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Json<Vec<LlmCallRow>>, ApiError> {
    admin_only(caller)?;
    let id = super::matches::match_id(&id)?;
    Ok(Json(app.runtime.services().db.llm_calls(id).await?))
}
