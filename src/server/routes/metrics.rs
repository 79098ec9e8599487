//! `GET /metrics`: the server's metrics in Prometheus's text format
//! (`telemetry.rs` names them), for the admin token.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;

use super::admin::admin_only;
use crate::runtime::Runtime;
use crate::server::auth::Caller;
use crate::server::error::ApiError;

/// Prometheus's text exposition format, version 0.0.4.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Matches live, move->reply and trigger latencies, the engine's queue
/// wait, language-model calls and tokens, memories saved and refused,
/// admission and rate-limit refusals, WebSockets, relayed requests and
/// leases (docs/operations.md lists each).
#[utoipa::path(get, path = "/metrics", tag = "admin", security(("bearer" = [])), responses((status = 200, description = "Prometheus text format 0.0.4", content_type = "text/plain", body = String), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn metrics(State(runtime): State<Runtime>, caller: Caller) -> Result<impl IntoResponse, ApiError> {
    admin_only(caller)?;
    runtime.record_gauges();
    let Some(text) = crate::telemetry::render() else {
        let message = "metrics are not recorded in this process";
        return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "no_metrics", message));
    };
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], text))
}
