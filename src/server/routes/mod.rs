pub mod admin;
pub mod cards;
pub mod lichess;
pub mod matches;
pub mod memories;
pub mod metrics;
pub mod personas;
pub mod players;
pub mod puzzles;
pub mod reflections;

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::error::ApiError;
use crate::config::Config;
use crate::memory::MemoryService;
use crate::runtime::Runtime;

#[utoipa::path(get, path = "/api/health", tag = "service", responses((status = 200, description = "up: `ok`; `starting` with how many unfinished matches are still `resuming`; or `degraded` when memory writes are off (why: the admin status); and who may join (`registration`: open, invite or admin)", body = Object)))]
pub async fn health(
    State(runtime): State<Runtime>,
    State(memory): State<MemoryService>,
    State(config): State<Arc<Config>>,
) -> Json<Value> {
    // Anyone may ask, so it says only whether all is well: the reason (a
    // filesystem path, an error text) is for the admin status.
    // Who may join is public: the page shows the right door.
    // So is whether a Lichess opponent may sign in with Lichess.
    let (registration, lichess) = (config.limits.registration, !config.lichess.accounts.is_empty());
    if memory.writable().await.is_err() {
        return Json(json!({ "status": "degraded", "registration": registration, "lichess": lichess }));
    }
    match runtime.resuming() {
        0 => Json(json!({ "status": "ok", "registration": registration, "lichess": lichess })),
        left => {
            Json(json!({ "status": "starting", "resuming": left, "registration": registration, "lichess": lichess }))
        }
    }
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
