//! A real LLM made slow: a proxy in front of llama-server that holds each
//! chat completion for a while before forwarding it, and counts what it
//! began and what it answered. `/models` passes at once (the preflight).
//! A request whose client hangs up while held is never forwarded.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};

#[derive(Default)]
pub struct Counts {
    /// Chat completions received.
    pub begun: AtomicUsize,
    /// Chat completions answered (forwarded and returned).
    pub answered: AtomicUsize,
}

struct Proxy {
    upstream: String,
    hold: Duration,
    http: reqwest::Client,
    counts: Arc<Counts>,
}

pub struct SlowLlm {
    /// Up to `/v1`.
    pub url: String,
    pub counts: Arc<Counts>,
}

impl SlowLlm {
    /// In front of `upstream` (up to `/v1`), each completion held `hold`.
    pub async fn start(upstream: &str, hold: Duration) -> SlowLlm {
        let counts = Arc::new(Counts::default());
        let proxy = Arc::new(Proxy {
            upstream: upstream.to_string(),
            hold,
            http: reqwest::Client::new(),
            counts: counts.clone(),
        });
        let router = Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/v1/models", get(models))
            .with_state(proxy);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        SlowLlm {
            url: format!("http://{addr}/v1"),
            counts,
        }
    }

    pub fn begun(&self) -> usize {
        self.counts.begun.load(Ordering::SeqCst)
    }

    pub fn answered(&self) -> usize {
        self.counts.answered.load(Ordering::SeqCst)
    }
}

async fn complete(State(p): State<Arc<Proxy>>, body: Bytes) -> (StatusCode, String) {
    p.counts.begun.fetch_add(1, Ordering::SeqCst);
    // Dropped here, with the request, if the client gives up first.
    tokio::time::sleep(p.hold).await;
    let sent = p
        .http
        .post(format!("{}/chat/completions", p.upstream))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await;
    let Ok(answer) = sent else {
        return (StatusCode::BAD_GATEWAY, "upstream down".into());
    };
    let status = StatusCode::from_u16(answer.status().as_u16()).unwrap();
    let text = answer.text().await.unwrap_or_default();
    p.counts.answered.fetch_add(1, Ordering::SeqCst);
    (status, text)
}

async fn models(State(p): State<Arc<Proxy>>) -> (StatusCode, String) {
    match p.http.get(format!("{}/models", p.upstream)).send().await {
        Ok(r) => (StatusCode::OK, r.text().await.unwrap_or_default()),
        Err(_) => (StatusCode::BAD_GATEWAY, String::new()),
    }
}
