//! Several nodes behind one load balancer: a match's requests are served by
//! the node that holds its lease, so its actor stays the one place that
//! orders its events. A request under `/api/matches/{id}` that reaches
//! another node is relayed to the holder (HTTP as it came, a WebSocket
//! frame by frame) and its answer relayed back; the client sees no
//! difference. If the holder cannot be reached (it crashed and its lease
//! has not run out yet), the answer is 503 `holder_unreachable` with
//! Retry-After: by then another node has the match. A WebSocket relayed
//! from a node that goes away is closed with 1012 (service restart): the
//! client reconnects with `?since=` and misses nothing.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::auth::WS_PROTOCOL;
use super::{ApiError, UPLOAD_LIMIT};
use crate::ids::MatchId;
use crate::runtime::{Placement, Runtime};

/// Carries the cluster's secret on a relayed request: the holder then
/// skips the per-address limits the first node already applied, and never
/// relays it again.
pub const RELAYED: HeaderName = HeaderName::from_static("x-kibitz-relayed");

/// The longest a relayed command may take (a game's last move waits for
/// the persona's reflection).
const RELAY_TIMEOUT: Duration = Duration::from_secs(120);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Largest WebSocket frame relayed (as `ws.rs` reads).
const MAX_FRAME: usize = 16 * 1024;

/// The HTTP client that relays, and the secret relayed requests carry.
pub struct Relay {
    http: reqwest::Client,
    secret: Option<HeaderValue>,
}

impl Relay {
    pub fn new(secret: Option<&str>) -> Relay {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(RELAY_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client with rustls");
        Relay {
            http,
            secret: secret.and_then(|s| HeaderValue::from_str(s).ok()),
        }
    }

    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub(super) fn secret(&self) -> Option<&HeaderValue> {
        self.secret.as_ref()
    }

    /// Whether a request was relayed by another node of this cluster.
    pub fn relayed(&self, headers: &HeaderMap) -> bool {
        use subtle::ConstantTimeEq;
        match (&self.secret, headers.get(&RELAYED)) {
            (Some(secret), Some(sent)) => bool::from(secret.as_bytes().ct_eq(sent.as_bytes())),
            _ => false,
        }
    }
}

/// The middleware: a match's requests go to the node that holds it.
pub async fn to_holder(
    State(runtime): State<Runtime>,
    State(relay): State<Arc<Relay>>,
    req: Request,
    next: Next,
) -> Response {
    let Some(id) = match_in_path(req.uri().path()) else {
        return next.run(req).await;
    };
    match runtime.place(id).await {
        Ok(Placement::Here) => next.run(req).await,
        // A relayed request is never relayed again: the match changed
        // hands on the way; the client tries again.
        Ok(Placement::At { node, .. }) if relay.relayed(req.headers()) => {
            let message = format!("node {node} now runs this match; try again");
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "moved", message)
                .retry_after(1)
                .into_response()
        }
        Ok(Placement::At {
            url, retry_after_secs, ..
        }) => {
            let unreachable = |e: String| {
                let message = format!("the node that runs this match cannot be reached ({e}); try again");
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "holder_unreachable", message)
                    .retry_after(retry_after_secs)
                    .into_response()
            };
            match is_upgrade(req.headers()) {
                true => relay_socket(&relay, &url, req).await.unwrap_or_else(unreachable),
                false => relay_http(&relay, &url, req).await.unwrap_or_else(unreachable),
            }
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `/api/matches/{id}` and everything under it.
fn match_in_path(path: &str) -> Option<MatchId> {
    let rest = path.strip_prefix("/api/matches/")?;
    let id = rest.split('/').next()?;
    id.parse().ok()
}

fn is_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// Headers that belong to one connection, not to the request.
fn hop_by_hop(name: &HeaderName) -> bool {
    [
        header::CONNECTION,
        header::HOST,
        header::CONTENT_LENGTH,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
        header::TE,
        header::TRAILER,
        header::PROXY_AUTHORIZATION,
        header::SEC_WEBSOCKET_KEY,
        header::SEC_WEBSOCKET_VERSION,
        header::SEC_WEBSOCKET_EXTENSIONS,
        header::SEC_WEBSOCKET_ACCEPT,
        RELAYED,
    ]
    .contains(name)
        || name.as_str() == "keep-alive"
}

async fn relay_http(relay: &Relay, url: &str, req: Request) -> Result<Response, String> {
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, UPLOAD_LIMIT).await else {
        let message = "the request body is too large".to_string();
        return Ok(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", message).into_response());
    };
    let target = format!("{url}{}", parts.uri.path_and_query().map_or("/", |p| p.as_str()));
    let mut sent = relay.http.request(parts.method, target).body(body);
    for (name, value) in parts.headers.iter().filter(|(n, _)| !hop_by_hop(n)) {
        sent = sent.header(name, value);
    }
    if let Some(secret) = &relay.secret {
        sent = sent.header(RELAYED, secret);
    }
    let answer = sent.send().await.map_err(|e| e.to_string())?;
    let mut response = Response::builder().status(answer.status());
    for (name, value) in answer.headers().iter().filter(|(n, _)| !hop_by_hop(n)) {
        response = response.header(name, value);
    }
    let body = answer.bytes().await.map_err(|e| e.to_string())?;
    response.body(Body::from(body)).map_err(|e| e.to_string())
}

type Upstream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the socket on the holder first, so its refusal (404, 426, 429)
/// is the client's answer; then accepts the client's and relays frames.
async fn relay_socket(relay: &Relay, url: &str, req: Request) -> Result<Response, String> {
    let (mut parts, _) = req.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let target = format!("{}{path}", url.replacen("http", "ws", 1));
    let mut upstream = target.into_client_request().map_err(|e| e.to_string())?;
    for name in [header::AUTHORIZATION, header::SEC_WEBSOCKET_PROTOCOL, header::ORIGIN] {
        if let Some(value) = parts.headers.get(&name) {
            upstream.headers_mut().insert(name, value.clone());
        }
    }
    if let Some(secret) = &relay.secret {
        upstream.headers_mut().insert(RELAYED, secret.clone());
    }
    let connect = tokio_tungstenite::connect_async(upstream);
    let upstream = match tokio::time::timeout(CONNECT_TIMEOUT * 5, connect).await {
        Ok(Ok((upstream, _))) => upstream,
        Ok(Err(tungstenite::Error::Http(refused))) => {
            let (parts, body) = refused.into_parts();
            return Ok((parts.status, parts.headers, body.unwrap_or_default()).into_response());
        }
        Ok(Err(e)) => return Err(e.to_string()),
        Err(_) => return Err("no answer".into()),
    };
    let client = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(client) => client,
        Err(rejection) => return Ok(rejection.into_response()),
    };
    Ok(client
        .protocols([WS_PROTOCOL])
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| pump(socket, upstream)))
}

/// Frames both ways until either side closes; a holder that goes away
/// closes the client with 1012, so it reconnects.
async fn pump(client: WebSocket, upstream: Upstream) {
    let (mut to_client, mut from_client) = client.split();
    let (mut to_holder, mut from_holder) = upstream.split();
    let down = async {
        while let Some(Ok(frame)) = from_holder.next().await {
            let closing = frame.is_close();
            if let Some(frame) = to_axum(frame)
                && to_client.send(frame).await.is_err()
            {
                return;
            }
            if closing {
                return;
            }
        }
        let restart = CloseFrame {
            code: 1012,
            reason: "the match moved to another node; reconnect".into(),
        };
        let _ = to_client.send(Message::Close(Some(restart))).await;
    };
    let up = async {
        while let Some(Ok(frame)) = from_client.next().await {
            let closing = matches!(frame, Message::Close(_));
            if let Some(frame) = to_tungstenite(frame)
                && to_holder.send(frame).await.is_err()
            {
                return;
            }
            if closing {
                return;
            }
        }
    };
    tokio::select! {
        () = down => {}
        () = up => {}
    }
}

/// Pings and pongs are answered on each hop by its own ends.
fn to_axum(frame: tungstenite::Message) -> Option<Message> {
    use tungstenite::Message as T;
    match frame {
        T::Text(text) => Some(Message::Text(text.as_str().into())),
        T::Binary(bytes) => Some(Message::Binary(bytes)),
        T::Close(close) => Some(Message::Close(close.map(|c| CloseFrame {
            code: c.code.into(),
            reason: c.reason.as_str().into(),
        }))),
        T::Ping(_) | T::Pong(_) | T::Frame(_) => None,
    }
}

fn to_tungstenite(frame: Message) -> Option<tungstenite::Message> {
    use tungstenite::Message as T;
    use tungstenite::protocol::CloseFrame as TClose;
    match frame {
        Message::Text(text) => Some(T::text(text.as_str())),
        Message::Binary(bytes) => Some(T::Binary(bytes)),
        Message::Close(close) => Some(T::Close(close.map(|c| TClose {
            code: c.code.into(),
            reason: c.reason.as_str().into(),
        }))),
        Message::Ping(_) | Message::Pong(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_matchs_own_paths_are_relayed() {
        let id = MatchId::new();
        assert_eq!(match_in_path(&format!("/api/matches/{id}")), Some(id));
        assert_eq!(match_in_path(&format!("/api/matches/{id}/ws")), Some(id));
        assert_eq!(match_in_path("/api/matches"), None);
        assert_eq!(match_in_path("/api/matches/not-an-id/moves"), None);
        assert_eq!(match_in_path(&format!("/api/players/{id}")), None);
    }

    #[test]
    fn only_the_clusters_secret_marks_a_request_relayed() {
        let relay = Relay::new(Some("a-secret-of-sixteen"));
        let mut headers = HeaderMap::new();
        assert!(!relay.relayed(&headers));
        headers.insert(RELAYED, HeaderValue::from_static("a-guess"));
        assert!(!relay.relayed(&headers));
        headers.insert(RELAYED, HeaderValue::from_static("a-secret-of-sixteen"));
        assert!(relay.relayed(&headers));
        assert!(!Relay::new(None).relayed(&headers), "no secret: nothing is relayed");
    }
}
