//! Listen first, serve when ready: the port is bound before the services
//! open (the model loads, lore syncs, an index is checked after a crash),
//! so a caller is told `starting` instead of being refused. Until the
//! runtime is ready, `/api/health` answers 503 `{"status":"starting"}` and
//! every other request 503 `starting` with a Retry-After; then the full
//! router serves every request.

use std::convert::Infallible;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tower::ServiceExt;

/// The router once the runtime is ready.
#[derive(Clone, Default)]
pub(super) struct Gate(Arc<OnceLock<Router>>);

impl Gate {
    pub(super) fn open(&self, router: Router) {
        let _ = self.0.set(router);
    }

    /// The service the listener serves from the start.
    pub(super) fn service(&self) -> Router {
        let gate = self.clone();
        Router::new().fallback_service(tower::service_fn(move |req: Request<Body>| {
            let gate = gate.clone();
            async move {
                match gate.0.get() {
                    Some(router) => router.clone().oneshot(req).await,
                    None => Ok::<_, Infallible>(starting(req.uri().path())),
                }
            }
        }))
    }
}

fn starting(path: &str) -> Response {
    if path == "/api/health" {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({ "status": "starting" })),
        )
            .into_response();
    }
    let body = json!({ "error": { "code": "starting", "message": "kibitz is starting; try again in a moment" } });
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "1")],
        axum::Json(body),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;

    async fn ask(service: Router, path: &str) -> (StatusCode, Option<String>, String) {
        let response = service
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let retry = response
            .headers()
            .get(header::RETRY_AFTER)
            .map(|v| v.to_str().unwrap().to_string());
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, retry, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn it_says_starting_until_the_router_is_ready_then_serves_it() {
        let gate = Gate::default();
        let (status, _, body) = ask(gate.service(), "/api/health").await;
        assert_eq!(
            (status, body.as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"starting"}"#)
        );
        let (status, retry, body) = ask(gate.service(), "/api/players").await;
        assert_eq!((status, retry.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("1")));
        assert!(body.contains(r#""code":"starting""#), "{body}");

        gate.open(Router::new().route("/api/health", get(|| async { "ready" })));
        let (status, _, body) = ask(gate.service(), "/api/health").await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "ready"));
    }
}
