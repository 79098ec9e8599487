//! HTTP and WebSocket API (axum). Thin: it parses, calls the runtime, and
//! maps errors to JSON. All game logic lives below it.

mod auth;
mod error;
mod extract;
mod limits;
mod routes;
mod web;
mod ws;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use error::ApiError;

use crate::runtime::Runtime;

/// Largest request body; chat and FEN limits are far below it.
const BODY_LIMIT: usize = 64 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub runtime: Runtime,
    pub limits: std::sync::Arc<limits::RateLimits>,
}

pub fn router(runtime: Runtime) -> Router {
    use routes::{admin, matches, memories, personas, players, reflections};
    Router::new()
        .route("/api/health", get(routes::health))
        .route("/api/personas", get(personas::list))
        .route("/api/personas/{id}", get(personas::get))
        .route("/api/players", post(players::create))
        .route("/api/players/{id}", get(players::get))
        .route("/api/players/{id}/matches", get(players::matches))
        .route("/api/players/{id}/memories", get(memories::list))
        .route("/api/players/{id}/memories/search", get(memories::search))
        .route("/api/players/{id}/memories/export", get(memories::export))
        .route(
            "/api/memories/{id}",
            get(memories::show).patch(memories::patch).delete(memories::delete),
        )
        .route("/api/admin/consolidations", get(admin::consolidations))
        .route("/api/admin/consolidate", post(admin::consolidate))
        .route("/api/admin/matches/{id}/llm-calls", get(admin::llm_calls))
        .route("/api/matches", post(matches::create))
        .route("/api/matches/{id}", get(matches::get))
        .route("/api/matches/{id}/pgn", get(matches::pgn))
        .route("/api/matches/{id}/moves", post(matches::play))
        .route("/api/matches/{id}/chat", post(matches::chat))
        .route("/api/matches/{id}/resign", post(matches::resign))
        .route("/api/matches/{id}/draw", post(matches::draw))
        .route("/api/matches/{id}/events", get(matches::events))
        .route("/api/matches/{id}/triggers", get(matches::triggers))
        .route("/api/matches/{id}/reflection", get(reflections::reflection))
        .route("/api/matches/{id}/reasoning", get(reflections::reasoning))
        .route("/api/matches/{id}/ws", get(ws::upgrade))
        .fallback(web::page_or_api_404)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(AppState {
            limits: std::sync::Arc::new(limits::RateLimits::new(
                runtime.services().config.chat_per_minute,
                runtime.services().config.memory_writes_per_minute,
            )),
            runtime,
        })
}

/// Serves until Ctrl-C or SIGTERM, then stops accepting and returns.
pub async fn serve(runtime: Runtime, listen: SocketAddr) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    tracing::info!("kibitz listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router(runtime))
        .with_graceful_shutdown(shutdown_signal())
        .await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}
