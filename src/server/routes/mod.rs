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
    Json(json!({ "status": "ok", "engine": svc.engine.name(), "personas": svc.personas.len() }))
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method",
    )
}
