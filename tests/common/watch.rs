//! Waiting on a running server: its WebSocket frames, its event log, any
//! condition polled until a deadline; and small readers of what it answers.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use super::Server;

pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects with `kibitz, bearer.<token>` as the subprotocols; the HTTP
/// status of a refused upgrade otherwise.
pub async fn ws_connect_as(url: &str, token: &str) -> Result<Ws, u16> {
    use tokio_tungstenite::tungstenite::Error;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = url.into_client_request().unwrap();
    let protocols = format!("kibitz, bearer.{token}").parse().unwrap();
    request.headers_mut().insert("sec-websocket-protocol", protocols);
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        Err(Error::Http(response)) => Err(response.status().as_u16()),
        Err(e) => panic!("websocket: {e}"),
    }
}

/// The next JSON frame, or None after `wait`.
pub async fn ws_next(ws: &mut Ws, wait: Duration) -> Option<Value> {
    loop {
        match tokio::time::timeout(wait, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                let frame: Value = serde_json::from_str(t.as_str()).unwrap();
                if frame.get("seq").is_some() {
                    typed_event(&frame);
                }
                return Some(frame);
            }
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

/// Frames up to and including the first for which `done` holds (all of
/// them if none does before a `wait` passes with no frame).
pub async fn ws_until(ws: &mut Ws, wait: Duration, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut frames = Vec::new();
    while let Some(frame) = ws_next(ws, wait).await {
        let last = done(&frame);
        frames.push(frame);
        if last {
            break;
        }
    }
    frames
}

pub async fn ws_send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// An event as a client reads it: it must parse as the typed `MatchEvent`
/// and write back the same JSON, so a writer and a reader cannot disagree.
pub fn typed_event(event: &Value) -> kibitz::events::MatchEvent {
    let typed: kibitz::events::MatchEvent =
        serde_json::from_value(event.clone()).unwrap_or_else(|e| panic!("not a MatchEvent ({e}): {event}"));
    assert_eq!(
        &serde_json::to_value(&typed).unwrap(),
        event,
        "an event changed on the way back"
    );
    typed
}

pub fn kinds(triggers: &[Value]) -> Vec<String> {
    triggers
        .iter()
        .map(|t| t["trigger"].as_str().unwrap().to_string())
        .collect()
}

/// Polls until `check` holds or `secs` pass.
pub async fn eventually<F, Fut>(secs: u64, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// The persona's messages among a command's events (`{events, state}`).
pub fn persona_lines(out: &Value) -> Vec<String> {
    out["events"]
        .as_array()
        .map(|events| {
            events
                .iter()
                .filter(|e| e["type"] == "message" && e["data"]["sender"] == "persona")
                .map(|e| e["data"]["content"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The persona's messages after event `seq`, once one has come (a model's
/// words follow the command that prompted them); empty after `secs`.
pub async fn persona_words_after(server: &Server, m: &str, seq: i64, secs: u64) -> Vec<String> {
    persona_words_until(server, m, seq, secs, |said| !said.is_empty()).await
}

/// The persona's messages after `seq`, once `done` holds of them (or the
/// time is up): a greeting landing first must not end a wait for a reply.
pub async fn persona_words_until(
    server: &Server,
    m: &str,
    seq: i64,
    secs: u64,
    done: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let said: Vec<String> = server
            .events(m)
            .await
            .iter()
            .filter(|e| e["seq"].as_i64() > Some(seq) && e["type"] == "message")
            .filter(|e| e["data"]["sender"] == "persona")
            .map(|e| e["data"]["content"].as_str().unwrap_or_default().to_string())
            .collect();
        if done(&said) || Instant::now() > deadline {
            return said;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A directory tree copied (a data dir as another process left it).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        match entry.file_type().unwrap().is_dir() {
            true => copy_dir(&entry.path(), &target),
            false => drop(std::fs::copy(entry.path(), target).unwrap()),
        }
    }
}

/// The moves (UCI) of a match state, in order.
pub fn ucis(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|mv| mv["uci"].as_str().unwrap().to_string())
        .collect()
}

/// An answer's `Retry-After`, in seconds.
pub fn retry_after(response: &reqwest::Response) -> Option<u64> {
    response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok()?.parse().ok())
}
