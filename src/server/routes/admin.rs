//! Admin-only routes: the memory consolidation log, a run on demand, and a
//! match's LLM call log.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::config::Config;
use crate::embed::EmbedStats;
use crate::ids::MatchId;
use crate::ids::PlayerId;
use crate::memory::MemoryService;
use crate::memory::Scope;
use crate::runtime::PhaseStats;
use crate::runtime::Runtime;
use crate::server::auth::Caller;
use crate::server::error::ApiError;
use crate::server::extract::{ApiJson, ApiQuery, IdPath};
use crate::server::sockets::Sockets;
use crate::server::views::{self, ConsolidationView, LlmCallView};
use crate::store::Db;

/// A new invite code, shown once.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Invite {
    code: String,
    expires_at: chrono::DateTime<chrono::Utc>,
}

/// An invite code for one new player (registration by invite), good for
/// `limits.invite_ttl_hours`.
#[utoipa::path(post, path = "/api/admin/invites", tag = "admin", security(("bearer" = [])), responses((status = 201, body = Invite), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn invite(
    State(db): State<Db>,
    State(config): State<Arc<Config>>,
    caller: Caller,
) -> Result<(StatusCode, Json<Invite>), ApiError> {
    admin_only(caller)?;
    let hours = i64::from(config.limits.invite_ttl_hours.max(1));
    let expires_at = chrono::Utc::now() + chrono::Duration::hours(hours);
    // 96 random bits: short enough to read out, far too many to guess.
    let code: String = crate::tokens::new_token().chars().take(24).collect();
    db.insert_invite(&crate::tokens::hash(&code), expires_at).await?;
    Ok((StatusCode::CREATED, Json(Invite { code, expires_at })))
}

pub(super) fn admin_only(caller: Caller) -> Result<(), ApiError> {
    match caller {
        Caller::Admin => Ok(()),
        Caller::Player(_) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "admin token required",
        )),
    }
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    /// 1..=500 runs, 20 by default.
    #[param(minimum = 1, maximum = 500)]
    limit: Option<usize>,
}

#[utoipa::path(get, path = "/api/admin/consolidations", tag = "admin", security(("bearer" = [])), params(LogQuery), responses((status = 200, body = Vec<ConsolidationView>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn consolidations(
    State(db): State<Db>,
    caller: Caller,
    ApiQuery(q): ApiQuery<LogQuery>,
) -> Result<Json<Vec<ConsolidationView>>, ApiError> {
    admin_only(caller)?;
    let limit = super::limit(q.limit, 20, 500)? as i64;
    Ok(Json(views::all(db.consolidations(limit).await?)))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsolidateBody {
    player: Option<PlayerId>,
}

#[utoipa::path(post, path = "/api/admin/consolidate", tag = "admin", security(("bearer" = [])), request_body = ConsolidateBody, responses((status = 200, body = ConsolidationView), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn consolidate(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    caller: Caller,
    ApiJson(body): ApiJson<ConsolidateBody>,
) -> Result<Json<ConsolidationView>, ApiError> {
    admin_only(caller)?;
    let scope = match body.player {
        Some(p) => {
            runtime.player(p).await?;
            Scope::Player(p)
        }
        None => Scope::Everyone,
    };
    Ok(Json(memory.consolidate(scope, "manual").await?.into()))
}

/// What an operator checks first: memories in SQL and in the vector index
/// (equal when they agree), the matches running now, how much the
/// embedding model works (memo hits are texts it did not have to run), and
/// where the matches' time goes since start, per phase.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Status {
    /// "ok", or why memory writes are off (e.g. "read-only: ...").
    memory: String,
    engine: String,
    personas: usize,
    memories_sql: u64,
    memories_index: u64,
    live_matches: usize,
    embedding: EmbedStats,
    timings: Vec<PhaseStats>,
    /// The deeper evaluation after each move: asked, checked, shed, waiting.
    deep_evaluations: crate::runtime::DeepStats,
    /// The personas' searches under the node budget and its time cap: how
    /// many, how many the clock stopped short of their nodes (a busy node
    /// playing weaker), and the nodes they reached on average.
    persona_searches: crate::chess::engine::SearchTally,
    /// The `[limits]` in force, and what is open against them now.
    #[schema(value_type = Object)]
    limits: crate::config::LimitsConfig,
    open_sockets: u32,
    admission: crate::runtime::AdmissionView,
    /// On PostgreSQL: this node's name, whether it runs the consolidation
    /// job, and the other live nodes' addresses.
    node: Option<NodeView>,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct NodeView {
    id: String,
    runs_consolidation: bool,
    peers: Vec<String>,
}

#[utoipa::path(get, path = "/api/admin/status", tag = "admin", security(("bearer" = [])), responses((status = 200, body = Status), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn status(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    State(config): State<Arc<Config>>,
    State(sockets): State<Arc<Sockets>>,
    caller: Caller,
) -> Result<Json<Status>, ApiError> {
    admin_only(caller)?;
    let (memories_sql, memories_index) = memory.counts().await?;
    let writes = match memory.writable().await {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("read-only: {e}"),
    };
    let node = match runtime.node() {
        Some((id, leads)) => Some(NodeView {
            id: id.to_string(),
            runs_consolidation: leads,
            peers: runtime.peer_urls().await?,
        }),
        None => None,
    };
    Ok(Json(Status {
        node,
        memory: writes,
        engine: runtime.engine_name(),
        personas: runtime.personas().len(),
        memories_sql,
        memories_index,
        live_matches: runtime.live_matches(),
        embedding: memory.embedding_stats(),
        timings: runtime.timings(),
        deep_evaluations: runtime.deep_evaluations(),
        persona_searches: runtime.persona_searches(),
        limits: config.limits.clone(),
        open_sockets: sockets.count(),
        admission: runtime.admission(),
    }))
}

/// A match's LLM calls: the per-role conversation log with tokens and
/// latency. Admin only: answers hold the agents' private thinking.
#[utoipa::path(get, path = "/api/admin/matches/{id}/llm-calls", tag = "admin", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id")), responses((status = 200, body = Vec<LlmCallView>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn llm_calls(
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<MatchId>,
) -> Result<Json<Vec<LlmCallView>>, ApiError> {
    admin_only(caller)?;
    Ok(Json(views::all(db.llm_calls(id).await?)))
}
