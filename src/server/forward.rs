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
use axum::extract::{FromRef, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::auth::{Caller, WS_PROTOCOL};
use super::client::{ClientAddress, RELAYED_FOR};
use super::{ApiError, AppState, BODY_LIMIT};
use crate::ids::MatchId;
use crate::runtime::{Placement, Runtime};

/// Carries the cluster's secret on a relayed request: the holder then
/// believes the client address the relaying node names (`client.rs`), and
/// never relays it again. Nothing else is waived.
pub const RELAYED: HeaderName = HeaderName::from_static("x-kibitz-relayed");

/// The longest a relayed command may take (a game's last move waits for
/// the persona's reflection).
const RELAY_TIMEOUT: Duration = Duration::from_secs(120);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
// A relayed socket's frames and pings follow the holder's own sockets.
use super::sockets::{MAX_FRAME, MISSED_PONGS};

/// The HTTP client that relays, and the secret relayed requests carry.
pub struct Relay {
    http: reqwest::Client,
    secret: Option<HeaderValue>,
    /// How often a relayed socket's client is pinged (`ws_ping_secs`).
    ping_every: Duration,
}

impl Relay {
    /// `secret` was checked at start to be a header's value
    /// (`config/cluster.rs`).
    pub fn new(secret: Option<&str>, ping_every: Duration) -> Relay {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(RELAY_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client with rustls");
        Relay {
            http,
            secret: secret.and_then(|s| HeaderValue::from_str(s).ok()),
            ping_every,
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

/// The middleware: a match's requests go to the node that holds it. The
/// caller is known (its token, the match its own) before a byte of its
/// body is read or anything is relayed, so a stranger reaches no other node.
pub async fn to_holder(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let Some(target) = MatchPath::parse(req.uri()) else {
        return next.run(req).await;
    };
    let runtime = Runtime::from_ref(&app);
    let relay = Arc::<Relay>::from_ref(&app);
    match runtime.place(target.id).await {
        Ok(Placement::Here) => next.run(req).await,
        // A relayed request is never relayed again: the match changed
        // hands on the way; the client tries again.
        Ok(Placement::At { .. }) if relay.relayed(req.headers()) => {
            let message = "another node now runs this match; try again";
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "moved", message)
                .retry_after(1)
                .into_response()
        }
        Ok(Placement::At {
            url, retry_after_secs, ..
        }) => {
            let (mut parts, body) = req.into_parts();
            if let Err(refused) = owner_calls(&app, &runtime, &mut parts, target.id).await {
                return refused.into_response();
            }
            let req = Request::from_parts(parts, body);
            // paths.rs refused every way out already; this is the last word.
            let Some(to) = target.at(&url) else {
                let message = "the path leaves the match's routes";
                return ApiError::new(StatusCode::BAD_REQUEST, "bad_path", message).into_response();
            };
            let unreachable = |e: String| {
                tracing::warn!("relaying to the node that runs match {} ({url}): {e}", target.id);
                let message = "the node that runs this match cannot be reached; try again";
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "holder_unreachable", message)
                    .retry_after(retry_after_secs)
                    .into_response()
            };
            crate::telemetry::relayed();
            match is_upgrade(req.headers()) {
                true => relay_socket(&relay, to, req).await.unwrap_or_else(unreachable),
                false => relay_http(&relay, to, req).await.unwrap_or_else(unreachable),
            }
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// Ok if the request's caller may act on match `id` (its player, or the admin).
async fn owner_calls(app: &AppState, runtime: &Runtime, parts: &mut Parts, id: MatchId) -> Result<(), ApiError> {
    let caller = Caller::from_request_parts(parts, app).await?;
    caller.owned_match(runtime, id).await.map(drop)
}

/// A path under `/api/matches/{id}`: the match, and what follows its id.
#[derive(Debug, PartialEq)]
struct MatchPath {
    id: MatchId,
    /// `/moves?x=1`, or empty: checked by `paths.rs` before it got here.
    rest: String,
}

impl MatchPath {
    fn parse(uri: &Uri) -> Option<MatchPath> {
        let tail = uri.path().strip_prefix("/api/matches/")?;
        let (id, suffix) = tail.split_at(tail.find('/').unwrap_or(tail.len()));
        let id: MatchId = id.parse().ok()?;
        let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        Some(MatchPath {
            id,
            rest: format!("{suffix}{query}"),
        })
    }

    /// The URL on node `base` that names this match's route and nothing
    /// else: made from the parsed id and the rest, then parsed the way the
    /// client will send it and refused unless it still names the match.
    fn at(&self, base: &str) -> Option<reqwest::Url> {
        let prefix = format!("/api/matches/{}", self.id);
        let url = reqwest::Url::parse(&format!("{}{prefix}{}", base.trim_end_matches('/'), self.rest)).ok()?;
        let path = url.path();
        let stays = path == prefix || path.strip_prefix(&prefix).is_some_and(|s| s.starts_with('/'));
        stays.then_some(url)
    }
}

fn is_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// Headers that belong to one connection, not to the request, and those
/// only this node may set on the next hop (who the client is).
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
        header::FORWARDED,
        RELAYED,
        RELAYED_FOR,
    ]
    .contains(name)
        || ["keep-alive", "x-forwarded-for", "x-real-ip"].contains(&name.as_str())
}

/// What the next hop is told besides the request: the secret and the client.
fn relay_headers(relay: &Relay, extensions: &axum::http::Extensions) -> Vec<(HeaderName, HeaderValue)> {
    let mut headers = Vec::new();
    if let Some(secret) = &relay.secret {
        headers.push((RELAYED, secret.clone()));
    }
    if let Some(client) = extensions.get::<ClientAddress>().and_then(ClientAddress::header) {
        headers.push((RELAYED_FOR, client));
    }
    headers
}

async fn relay_http(relay: &Relay, to: reqwest::Url, req: Request) -> Result<Response, String> {
    let (parts, body) = req.into_parts();
    // No route under a match takes more than the common limit.
    let Ok(body) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        let message = "the request body is too large".to_string();
        return Ok(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", message).into_response());
    };
    let mut sent = relay.http.request(parts.method, to).body(body);
    for (name, value) in parts.headers.iter().filter(|(n, _)| !hop_by_hop(n)) {
        sent = sent.header(name, value);
    }
    for (name, value) in relay_headers(relay, &parts.extensions) {
        sent = sent.header(name, value);
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
async fn relay_socket(relay: &Relay, mut to: reqwest::Url, req: Request) -> Result<Response, String> {
    let (mut parts, _) = req.into_parts();
    let scheme = if to.scheme() == "https" { "wss" } else { "ws" };
    to.set_scheme(scheme).map_err(|()| "no WebSocket URL".to_string())?;
    let mut upstream = to.as_str().into_client_request().map_err(|e| e.to_string())?;
    for name in [header::AUTHORIZATION, header::SEC_WEBSOCKET_PROTOCOL, header::ORIGIN] {
        if let Some(value) = parts.headers.get(&name) {
            upstream.headers_mut().insert(name, value.clone());
        }
    }
    for (name, value) in relay_headers(relay, &parts.extensions) {
        upstream.headers_mut().insert(name, value);
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
    let ping_every = relay.ping_every;
    let client = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(client) => client,
        Err(rejection) => return Ok(rejection.into_response()),
    };
    Ok(client
        .protocols([WS_PROTOCOL])
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| pump(socket, upstream, ping_every)))
}

/// Frames both ways until either side closes; a holder that goes away
/// closes the client with 1012, so it reconnects. The client is pinged
/// here (the holder pings this node, not it), so one whose network dropped
/// gives its socket slots back.
async fn pump(client: WebSocket, upstream: Upstream, ping_every: Duration) {
    let (mut to_client, mut from_client) = client.split();
    let (mut to_holder, mut from_holder) = upstream.split();
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut unanswered = 0;
    loop {
        tokio::select! {
            frame = from_holder.next() => {
                let Some(Ok(frame)) = frame else {
                    let restart = CloseFrame {
                        code: 1012,
                        reason: "the match moved to another node; reconnect".into(),
                    };
                    let _ = to_client.send(Message::Close(Some(restart))).await;
                    return;
                };
                let closing = frame.is_close();
                if let Some(frame) = to_axum(frame) && to_client.send(frame).await.is_err() {
                    return;
                }
                if closing {
                    return;
                }
            }
            frame = from_client.next() => {
                let Some(Ok(frame)) = frame else { return };
                // Any frame, a pong or a command, shows the client is there.
                unanswered = 0;
                let closing = matches!(frame, Message::Close(_));
                if let Some(frame) = to_tungstenite(frame) && to_holder.send(frame).await.is_err() {
                    return;
                }
                if closing {
                    return;
                }
            }
            _ = ping.tick() => {
                if unanswered >= MISSED_PONGS {
                    let _ = to_client.send(Message::Close(None)).await;
                    return;
                }
                unanswered += 1;
                if to_client.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            }
        }
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

    fn path(p: &str) -> Option<MatchPath> {
        MatchPath::parse(&p.parse::<Uri>().unwrap())
    }

    #[test]
    fn only_a_matchs_own_paths_are_relayed() {
        let id = MatchId::new();
        assert_eq!(path(&format!("/api/matches/{id}")).unwrap().rest, "");
        let ws = path(&format!("/api/matches/{id}/ws?since=4")).unwrap();
        assert_eq!((ws.id, ws.rest.as_str()), (id, "/ws?since=4"));
        assert_eq!(path("/api/matches"), None);
        assert_eq!(path("/api/matches/not-an-id/moves"), None);
        assert_eq!(path(&format!("/api/players/{id}")), None);
    }

    #[test]
    fn the_relayed_url_names_the_match_or_nothing() {
        let id = MatchId::new();
        let to = path(&format!("/api/matches/{id}/moves"))
            .unwrap()
            .at("http://10.0.0.6:8080/")
            .unwrap();
        assert_eq!(to.as_str(), format!("http://10.0.0.6:8080/api/matches/{id}/moves"));
        // What paths.rs refuses first, refused here again should it pass.
        for escape in [
            "/../../../internal/forget",
            "/%2e%2e/%2e%2e/%2e%2e/internal/forget",
            "/./../x",
        ] {
            let sneaky = MatchPath {
                id,
                rest: escape.to_string(),
            };
            assert_eq!(sneaky.at("http://10.0.0.6:8080"), None, "{escape}");
        }
        let glued = MatchPath {
            id,
            rest: "x".to_string(),
        };
        assert_eq!(
            glued.at("http://10.0.0.6:8080"),
            None,
            "another id's prefix is not this match"
        );
    }

    #[test]
    fn only_the_clusters_secret_marks_a_request_relayed() {
        let relay = Relay::new(Some("a-secret-of-sixteen"), Duration::from_secs(30));
        let mut headers = HeaderMap::new();
        assert!(!relay.relayed(&headers));
        headers.insert(RELAYED, HeaderValue::from_static("a-guess"));
        assert!(!relay.relayed(&headers));
        headers.insert(RELAYED, HeaderValue::from_static("a-secret-of-sixteen"));
        assert!(relay.relayed(&headers));
        let alone = Relay::new(None, Duration::from_secs(30));
        assert!(!alone.relayed(&headers), "no secret: nothing is relayed");
    }
}
