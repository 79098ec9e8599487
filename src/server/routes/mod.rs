pub mod admin;
pub mod matches;
pub mod memories;
pub mod personas;
pub mod players;
pub mod reflections;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;

#[utoipa::path(get, path = "/api/health", tag = "service", responses((status = 200, description = "up; the engine and persona count", body = Object)))]
pub async fn health(State(app): State<AppState>) -> Json<Value> {
    let svc = app.runtime.services();
    // Games go on without memory writes; the status says they are off.
    let memory = match svc.memory.writable().await {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("read-only: {e}"),
    };
    let status = if memory == "ok" { "ok" } else { "degraded" };
    Json(json!({
        "status": status, "memory": memory, "engine": svc.engine.name(), "personas": svc.personas.len(),
    }))
}

/// A `limit` query parameter: `default` when absent, refused outside 1..=max.
pub(super) fn limit(value: Option<usize>, default: usize, max: usize) -> Result<usize, ApiError> {
    let limit = value.unwrap_or(default);
    if !(1..=max).contains(&limit) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_query",
            format!("limit must be 1..={max}"),
        ));
    }
    Ok(limit)
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method",
    )
}
