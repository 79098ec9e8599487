//! HTTP and WebSocket API (axum). Thin: it parses, calls the runtime, and
//! maps errors to JSON. All game logic lives below it.

mod auth;
mod client;
mod error;
mod extract;
mod forward;
mod limits;
mod openapi;
mod paths;
mod peers;
mod routes;
mod sockets;
mod starting;
mod state;
mod views;
mod web;
mod ws;

use std::future::IntoFuture;
use std::net::SocketAddr;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use error::{ApiError, ErrorBody};
pub use state::AppState;

use crate::runtime::Runtime;

/// Largest request body; chat and FEN limits are far below it.
const BODY_LIMIT: usize = 64 * 1024;
/// Largest upload (a character card, a memory export): a little over what
/// their readers take, so a file just too large gets their clear answer.
const UPLOAD_LIMIT: usize = crate::personas::card::MAX_CARD_BYTES + 1024 * 1024;

pub fn router(runtime: Runtime) -> Router {
    let (api, mut doc) = api_routes().split_for_parts();
    openapi::finish(&mut doc);
    let doc = std::sync::Arc::new(doc);
    let state = AppState::new(runtime);
    api.route(
        "/openapi.json",
        get(move || std::future::ready(axum::Json(doc.clone()))),
    )
    // Between the nodes of a club only: not in the API's document.
    .route(peers::FORGET_PATH, axum::routing::post(peers::forget))
    .fallback(web::page_or_api_404)
    .method_not_allowed_fallback(routes::method_not_allowed)
    .layer(DefaultBodyLimit::max(BODY_LIMIT))
    .layer(axum::middleware::from_fn_with_state(state.clone(), forward::to_holder))
    .layer(axum::middleware::from_fn_with_state(
        state.clone(),
        limits::every_request,
    ))
    // Outermost: an odd path reaches no limiter's bucket, relay or route.
    .layer(axum::middleware::from_fn(paths::refuse_odd_paths))
    .with_state(state)
}

/// Every API route, each registered with its OpenAPI description.
fn api_routes() -> OpenApiRouter<AppState> {
    use routes::{admin, cards, lichess, matches, memories, personas, players, puzzles, reflections};
    // The innermost body limit wins: uploads may be larger than the rest.
    let uploads = OpenApiRouter::new()
        .routes(routes!(cards::import))
        .routes(routes!(memories::import))
        .layer(DefaultBodyLimit::max(UPLOAD_LIMIT));
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(routes::health))
        .routes(routes!(personas::list))
        .routes(routes!(personas::get))
        .routes(routes!(personas::image))
        .routes(routes!(cards::export))
        .merge(uploads)
        .routes(routes!(players::create))
        .routes(routes!(players::get))
        .routes(routes!(players::matches))
        .routes(routes!(players::rating))
        .routes(routes!(lichess::start))
        .routes(routes!(lichess::callback))
        .routes(routes!(memories::list))
        .routes(routes!(memories::search))
        .routes(routes!(memories::export))
        .routes(routes!(memories::show, memories::patch, memories::delete))
        .routes(routes!(admin::status))
        .routes(routes!(admin::invite))
        .routes(routes!(admin::consolidations))
        .routes(routes!(admin::consolidate))
        .routes(routes!(admin::llm_calls))
        .routes(routes!(routes::metrics::metrics))
        .routes(routes!(matches::create))
        .routes(routes!(matches::get))
        .routes(routes!(matches::pgn))
        .routes(routes!(matches::play))
        .routes(routes!(matches::chat))
        .routes(routes!(matches::resign))
        .routes(routes!(matches::draw))
        .routes(routes!(matches::talk))
        .routes(routes!(matches::hint))
        .routes(routes!(matches::explain))
        .routes(routes!(matches::takeback))
        .routes(routes!(matches::puzzle))
        .routes(routes!(matches::events))
        .routes(routes!(matches::triggers))
        .routes(routes!(reflections::reflection))
        .routes(routes!(reflections::review))
        .routes(routes!(reflections::reasoning))
        .routes(routes!(puzzles::list))
        .routes(routes!(puzzles::answer))
        .routes(routes!(puzzles::dismiss))
        .routes(routes!(ws::upgrade))
}

/// Serves until Ctrl-C or SIGTERM, then stops accepting and returns.
/// Binds `listen` at once and answers `starting` while `start` opens the
/// runtime (`starting.rs`), then serves the API until SIGTERM or Ctrl-C.
/// The runtime, for the clean stop, once the server has stopped.
pub async fn serve<E>(
    listen: SocketAddr,
    start: impl std::future::Future<Output = Result<Runtime, E>>,
) -> Result<Runtime, ServeError<E>> {
    let listener = tokio::net::TcpListener::bind(listen).await.map_err(ServeError::Io)?;
    tracing::info!(
        "kibitz listening on http://{}",
        listener.local_addr().map_err(ServeError::Io)?
    );
    let gate = starting::Gate::default();
    // Each request knows its peer's address (the per-address limits).
    let service = gate.service().into_make_service_with_connect_info::<SocketAddr>();
    let server = axum::serve(listener, service).with_graceful_shutdown(shutdown_signal());
    let server = tokio::spawn(server.into_future());
    let runtime = match start.await {
        Ok(runtime) => runtime,
        Err(e) => {
            server.abort();
            return Err(ServeError::Start(e));
        }
    };
    gate.open(router(runtime.clone()));
    match server.await {
        Ok(result) => result.map_err(ServeError::Io)?,
        Err(e) => return Err(ServeError::Io(std::io::Error::other(e))),
    }
    Ok(runtime)
}

/// Why serving stopped with an error: the runtime did not start, or the socket failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError<E> {
    #[error("starting kibitz: {0}")]
    Start(E),
    #[error("serving: {0}")]
    Io(std::io::Error),
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
