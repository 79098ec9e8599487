//! The review API: a player's own memories, with provenance, corrections,
//! pins, never-recall, erasure and export. Every route needs a bearer token.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::PlayerId;
use crate::ids::{MatchId, MemoryId, PersonaId};
use crate::memory::MemoryQuery;
use crate::memory::vector::VectorError;
use crate::memory::{CreatedBy, Memory, MemoryError, MemoryService, MemoryType, RecallRecord, Recalled};
use crate::runtime::Runtime;
use crate::server::auth::Caller;
use crate::server::error::ApiError;
use crate::server::extract::{ApiBytes, ApiJson, ApiQuery, IdPath};
use crate::server::forward::Relay;
use crate::server::limits::{Limit, RateLimits};
use crate::server::views::{self, MemoryVersionView};

impl From<MemoryError> for ApiError {
    fn from(e: MemoryError) -> ApiError {
        match e {
            MemoryError::BadContent => ApiError::new(StatusCode::BAD_REQUEST, "bad_content", e.to_string()),
            MemoryError::NotFound => ApiError::not_found("memory"),
            MemoryError::Store(e) => e.into(),
            MemoryError::Vector(VectorError::ReadOnly(why)) => {
                tracing::error!("memory index is read-only: {why}");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "memory_read_only",
                    "memories cannot be changed now: the memory index is read-only (see /api/health)",
                )
            }
            other => {
                tracing::error!("memory service: {other}");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "memory_unavailable",
                    "the memory index is unavailable",
                )
            }
        }
    }
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    #[param(pattern = r"^[^\u0000]*$")]
    persona: Option<String>,
    #[serde(rename = "type")]
    #[param(rename = "type")]
    memory_type: Option<MemoryType>,
    #[serde(rename = "match")]
    #[param(rename = "match")]
    match_id: Option<MatchId>,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
    pinned: Option<bool>,
    /// Include superseded memories.
    #[serde(default)]
    superseded: bool,
}

#[utoipa::path(get, path = "/api/players/{id}/memories", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id"), ListQuery), responses((status = 200, body = Vec<Object>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn list(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Vec<Memory>>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    let query = MemoryQuery {
        persona: q.persona.map(PersonaId::from),
        memory_type: q.memory_type,
        match_id: q.match_id,
        created_from: q.from,
        created_to: q.to,
        pinned: q.pinned,
        include_superseded: q.superseded,
    };
    Ok(Json(memory.list(id, &query).await?))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SearchQuery {
    #[param(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000]*[^\s\u0085\u0000][^\u0000]*$"
    )]
    q: String,
    #[param(pattern = r"^[^\u0000]*$")]
    persona: Option<String>,
    /// 1..=100 results, 10 by default.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<usize>,
}

#[utoipa::path(get, path = "/api/players/{id}/memories/search", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id"), SearchQuery), responses((status = 200, body = Vec<Object>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn search(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
    ApiQuery(q): ApiQuery<SearchQuery>,
) -> Result<Json<Vec<Recalled>>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    let text = q.q.trim();
    if text.is_empty() || q.q.chars().count() > 500 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_query",
            "q must be 1..=500 characters",
        ));
    }
    let limit = super::limit(q.limit, 10, 100)?;
    Ok(Json(
        memory
            .search_own(id, q.persona.map(PersonaId::from), text, limit)
            .await?,
    ))
}

#[utoipa::path(get, path = "/api/players/{id}/memories/export", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id")), responses((status = 200, description = "every memory of the player, as a download", body = Object), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn export(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
) -> Result<impl IntoResponse, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    let body = memory.export(id).await?;
    let disposition = format!("attachment; filename=\"kibitz-memories-{id}.json\"");
    Ok(([(header::CONTENT_DISPOSITION, disposition)], Json(body)))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ImportQuery {
    /// The file's name, kept in each memory's provenance (default `upload`).
    #[param(pattern = "^[A-Za-z0-9 ._-]{0,120}$")]
    source: Option<String>,
}

#[utoipa::path(post, path = "/api/players/{id}/memories/import", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id"), ImportQuery), request_body(content = Object, description = "a memory export (GET /api/players/{id}/memories/export), at most 5 MiB"), responses((status = 200, description = "what was inserted, reinforced, superseded and skipped", body = crate::memory::ImportReport), (status = "4XX", description = "a client error, with a stable code: invalid_import names the field", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn import(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
    ApiQuery(q): ApiQuery<ImportQuery>,
    ApiBytes(body): ApiBytes,
) -> Result<Json<crate::memory::ImportReport>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    // A first token before the file is read; then one for each memory.
    limits.take(Limit::MemoryWrite, &caller_key(&caller))?;
    let personas: Vec<PersonaId> = runtime.personas().iter().map(|p| p.id.clone()).collect();
    let source = q.source.unwrap_or_else(|| "upload".into());
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-');
    if source.chars().count() > 120 || !source.chars().all(plain) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            "source: a file name of letters, digits, spaces, '.', '_' and '-', at most 120 characters",
        ));
    }
    let read = crate::memory::ReadImport::read(id, &body, &personas, &source)?;
    limits.charge(
        Limit::MemoryWrite,
        &caller_key(&caller),
        read.writes().saturating_sub(1) as f64,
    );
    Ok(Json(memory.import_read(read).await?))
}

impl From<crate::memory::ImportError> for ApiError {
    fn from(e: crate::memory::ImportError) -> ApiError {
        use crate::memory::ImportError as E;
        match e {
            E::TooLarge(_) => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", e.to_string()),
            E::Field { .. } => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_import", e.to_string()),
            E::Memory(e) => e.into(),
        }
    }
}

/// One memory and its full provenance.
#[derive(Serialize)]
pub struct Provenance {
    memory: Memory,
    /// Its earlier texts, oldest first, kept when it was edited.
    versions: Vec<MemoryVersionView>,
    recalls: Vec<RecallRecord>,
}

async fn owned_memory(service: &MemoryService, caller: Caller, id: MemoryId) -> Result<Memory, ApiError> {
    let memory = service.get(id).await?.ok_or_else(|| ApiError::not_found("memory"))?;
    caller.may_access(memory.player_id, "memory")?;
    Ok(memory)
}

/// Lore comes from the persona file; it is changed there, not here.
fn writable(memory: &Memory) -> Result<(), ApiError> {
    if memory.created_by == CreatedBy::PersonaLore {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "lore_read_only",
            "persona lore is read-only: edit the persona file",
        ));
    }
    Ok(())
}

#[utoipa::path(get, path = "/api/memories/{id}", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "memory id")), responses((status = 200, description = "the memory and every time it was recalled", body = Object), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn show(
    State(service): State<MemoryService>,
    caller: Caller,
    IdPath(id): IdPath<MemoryId>,
) -> Result<Json<Provenance>, ApiError> {
    let memory = owned_memory(&service, caller, id).await?;
    let (recalls, versions) = (service.recalls(memory.id).await?, service.versions(memory.id).await?);
    Ok(Json(Provenance {
        memory,
        versions: views::all(versions),
        recalls,
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    #[serde(default, deserialize_with = "present")]
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = r"^[^\u0000]*[^\s\u0085\u0000][^\u0000]*$",
        nullable = false
    )]
    content: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false)]
    pinned: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false)]
    never_recall: Option<bool>,
}

/// A field that is present must hold a value: `null` is refused, not read
/// as "leave it".
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[utoipa::path(patch, path = "/api/memories/{id}", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "memory id")), request_body = Patch, responses((status = 200, body = Object), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn patch(
    State(service): State<MemoryService>,
    State(limits): State<Arc<RateLimits>>,
    caller: Caller,
    IdPath(id): IdPath<MemoryId>,
    ApiJson(body): ApiJson<Patch>,
) -> Result<Json<Memory>, ApiError> {
    limits.take(Limit::MemoryWrite, &caller_key(&caller))?;
    let memory = owned_memory(&service, caller, id).await?;
    writable(&memory)?;
    if body.content.is_none() && body.pinned.is_none() && body.never_recall.is_none() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "empty_patch",
            "give content, pinned or never_recall",
        ));
    }
    let mut updated = memory;
    if let Some(content) = &body.content {
        updated = service.edit(updated.id, content).await?;
    }
    if body.pinned.is_some() || body.never_recall.is_some() {
        updated = service.set_flags(updated.id, body.pinned, body.never_recall).await?;
    }
    Ok(Json(updated))
}

#[utoipa::path(delete, path = "/api/memories/{id}", tag = "memories", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "memory id")), responses((status = 204, description = "erased everywhere"), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody), (status = 503, description = "the memory index is unavailable", body = crate::server::ErrorBody)))]
pub async fn delete(
    State(runtime): State<Runtime>,
    State(service): State<MemoryService>,
    State(limits): State<Arc<RateLimits>>,
    State(relay): State<Arc<Relay>>,
    caller: Caller,
    IdPath(id): IdPath<MemoryId>,
) -> Result<StatusCode, ApiError> {
    limits.take(Limit::MemoryWrite, &caller_key(&caller))?;
    let memory = owned_memory(&service, caller, id).await?;
    writable(&memory)?;
    let forms = runtime.erase_memory(&memory).await?;
    crate::server::peers::forget_everywhere(&runtime, &relay, memory.player_id, &forms).await;
    Ok(StatusCode::NO_CONTENT)
}

/// Whose bucket a memory write comes out of.
fn caller_key(caller: &Caller) -> String {
    match caller {
        Caller::Player(p) => p.to_string(),
        Caller::Admin => "admin".into(),
    }
}
