//! The club room's page and assets (built into `web_dir` by `make web`),
//! served beside the API: unknown `/api/...` paths stay JSON 404s; anything
//! else is a file of the page, or a clear word that it was not built.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::ServeDir;

use super::error::ApiError;
use crate::config::Config;

pub async fn page_or_api_404(State(config): State<Arc<Config>>, req: Request<Body>) -> Response {
    let path = req.uri().path().to_string();
    if path.starts_with("/api/") || path == "/api" {
        return ApiError::not_found(format!("route {path}")).into_response();
    }
    let dir: PathBuf = config.web_dir.clone();
    if !dir.join("index.html").exists() {
        let body = format!(
            "The club room's page is not built (no {}/index.html). Run `make web`, or set KIBITZ_WEB_DIR.\n",
            dir.display()
        );
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            body,
        )
            .into_response();
    }
    match ServeDir::new(&dir).oneshot(req).await {
        Ok(res) => res.into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}
