//! One WebSocket per match viewer. On connect it sends the match state, then
//! every event after `?since=N` from SQL, then live events, never one twice.
//! It also takes commands: {"type":"move","move":"e4"}, {"type":"chat","text":...},
//! {"type":"resign"}, {"type":"draw","action":"offer|accept|decline"},
//! {"type":"talk","mode":"quiet|chatty|normal"}, {"type":"hint"}, {"type":"explain"},
//! {"type":"takeback"}, {"type":"puzzle","move":"Qxd8#"}.
//! Only the match's player (or the admin) may connect; see `auth`.

use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::auth::{Caller, WS_PROTOCOL};
use super::error::ApiError;
use super::extract::ApiQuery;
use super::sockets::{MAX_FRAME, MISSED_PONGS, Sockets};
use crate::config::Config;
use crate::events::{MatchEvent, Pushed};
use crate::ids::MatchId;
use crate::server::extract::IdPath;
use crate::store::Db;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::limits::{Limit, RateLimits};
use crate::runtime::{Runtime, UserCommand};
use crate::triggers::TalkMode;

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default)]
    since: i64,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ClientCommand {
    Move {
        #[serde(rename = "move")]
        mv: String,
    },
    Chat {
        text: String,
    },
    Resign,
    Draw {
        action: String,
    },
    Talk {
        mode: String,
    },
    Hint,
    Explain,
    Takeback,
    Puzzle {
        #[serde(rename = "move")]
        mv: String,
    },
}

/// What the WebSocket route works with, as one sub-state of the router's.
#[derive(Clone)]
pub struct SocketParts {
    runtime: Runtime,
    db: Db,
    config: Arc<Config>,
    limits: Arc<RateLimits>,
    sockets: Arc<Sockets>,
}

impl SocketParts {
    pub fn new(
        runtime: Runtime,
        db: Db,
        config: Arc<Config>,
        limits: Arc<RateLimits>,
        sockets: Arc<Sockets>,
    ) -> SocketParts {
        SocketParts {
            runtime,
            db,
            config,
            limits,
            sockets,
        }
    }
}

#[utoipa::path(get, path = "/api/matches/{id}/ws", tag = "matches", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "match id"), Params), responses((status = 101, description = "a WebSocket: state, events after `since`, then live events (each frame a MatchEvent, or an error frame); takes move, chat, resign, draw, talk, hint, explain and takeback commands", body = crate::events::MatchEvent), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn upgrade(
    State(parts): State<SocketParts>,
    caller: Caller,
    headers: HeaderMap,
    IdPath(id): IdPath<MatchId>,
    ApiQuery(params): ApiQuery<Params>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let SocketParts {
        runtime,
        db,
        config,
        limits,
        sockets,
    } = parts;
    let id: MatchId = caller.playable_match(&runtime, &db, id).await?;
    // A plain GET here needs an upgrade, which 426 says (axum's 400 does not).
    let ws = ws.map_err(|r| ApiError::new(StatusCode::UPGRADE_REQUIRED, "websocket_required", r.body_text()))?;
    let player = match caller {
        Caller::Player(p) => Some(p),
        Caller::Admin => None,
    };
    let slot = sockets.open(player, id, &config.limits)?;
    let viewer = Viewer {
        runtime,
        db,
        limits,
        // Each frame is a request of this token's, counted as HTTP ones are.
        token_key: super::auth::bearer(&headers).ok().map(crate::tokens::hash),
        id,
        ping_every: std::time::Duration::from_secs_f64(config.ws_ping_secs),
    };
    // A browser that offered `kibitz, bearer.<token>` needs one of them echoed.
    Ok(ws
        .protocols([WS_PROTOCOL])
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| async move {
            // The slot is held for the socket's life.
            let _slot = slot;
            crate::telemetry::websocket_opened();
            session(viewer, params.since, socket).await;
            crate::telemetry::websocket_closed();
        }))
}

/// What a viewer's session works with.
struct Viewer {
    runtime: Runtime,
    db: Db,
    limits: Arc<RateLimits>,
    token_key: Option<String>,
    id: MatchId,
    ping_every: std::time::Duration,
}

async fn session(viewer: Viewer, since: i64, socket: WebSocket) {
    let Viewer {
        runtime,
        db,
        limits,
        token_key,
        id,
        ping_every: every,
    } = viewer;
    let (mut sink, mut stream) = socket.split();
    // Subscribe before reading the backlog so nothing falls between the two.
    let mut live = Some(runtime.subscribe(id).await);
    let mut last = since;
    if let Ok(state) = runtime.state(id).await {
        // A `since` past the match's last event (a stale client, another
        // server's numbers) means "from now", not "never".
        last = last.min(state.last_seq);
        let _ = sink.send(text(json!({ "type": "state", "data": state }))).await;
    }
    if !catch_up(&db, id, &mut last, &mut sink).await {
        return;
    }
    // A command runs beside the forwarding of events: its events reach the
    // player as each commits, not once the whole command is done (a game's
    // last move once waited for the persona's after_match and reflection).
    let mut pending: Option<Pin<Box<dyn Future<Output = Option<serde_json::Value>> + Send>>> = None;
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut unanswered = 0;
    loop {
        tokio::select! {
            // A peer that stopped answering (a dropped network, a closed lid)
            // would hold its session forever. While a command runs, frames
            // are not read, so no ping is counted then.
            _ = ping.tick(), if pending.is_none() => {
                if unanswered >= MISSED_PONGS {
                    let _ = sink.send(Message::Close(None)).await;
                    return;
                }
                unanswered += 1;
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            },
            event = async { live.as_mut().expect("guarded").recv().await }, if live.is_some() => match event {
                Ok(passing @ Pushed::Passing { .. }) => {
                    if sink.send(event_frame(&passing.event())).await.is_err() { return; }
                }
                Ok(Pushed::Stored(e)) if e.seq <= last => {}
                Ok(Pushed::Stored(e)) => {
                    let lagged = match forward(e, live.as_mut().expect("guarded"), &mut last, &mut sink).await {
                        Ok(lagged) => lagged,
                        Err(()) => return,
                    };
                    if lagged && !catch_up(&db, id, &mut last, &mut sink).await { return; }
                }
                Err(RecvError::Lagged(_)) => {
                    if !catch_up(&db, id, &mut last, &mut sink).await { return; }
                }
                Err(RecvError::Closed) => {
                    // The match ended; send anything still unsent and keep serving reads.
                    if !catch_up(&db, id, &mut last, &mut sink).await { return; }
                    live = None;
                }
            },
            // The command's answer (an error frame, if any); its events came meanwhile.
            reply = async { pending.as_mut().expect("guarded").await }, if pending.is_some() => {
                pending = None;
                if let Some(reply) = reply && sink.send(text(reply)).await.is_err() {
                    return;
                }
            },
            // One command at a time, in the order sent; the next waits in the socket.
            frame = stream.next(), if pending.is_none() => match frame {
                Some(Ok(Message::Pong(_))) => unanswered = 0,
                Some(Ok(Message::Text(body))) => {
                    unanswered = 0;
                    if let Some(key) = &token_key && let Err(e) = limits.take(Limit::RequestByToken, key) {
                        if sink.send(text(error_frame(e.code, &e.message))).await.is_err() { return; }
                        continue;
                    }
                    let (runtime, limits) = (runtime.clone(), limits.clone());
                    pending = Some(Box::pin(async move { handle(&runtime, &limits, id, body.as_str()).await }));
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}

/// Sends `first` and every event already queued behind it (a turn's events
/// are committed, so pushed, together), flushing the socket once for all.
/// Ok(true) when the channel lagged and the rest must come from SQL; Err if
/// the socket is gone.
async fn forward(
    first: MatchEvent,
    live: &mut broadcast::Receiver<Pushed>,
    last: &mut i64,
    sink: &mut (impl SinkExt<Message> + Unpin),
) -> Result<bool, ()> {
    let mut next = Ok(Pushed::Stored(first));
    let lagged = loop {
        match next {
            Ok(passing @ Pushed::Passing { .. }) => sink.feed(event_frame(&passing.event())).await.map_err(drop)?,
            Ok(Pushed::Stored(e)) if e.seq <= *last => {}
            Ok(Pushed::Stored(e)) => {
                *last = e.seq;
                sink.feed(event_frame(&e)).await.map_err(drop)?;
            }
            Err(TryRecvError::Lagged(_)) => break true,
            Err(_) => break false,
        }
        next = live.try_recv();
    };
    sink.flush().await.map_err(drop)?;
    Ok(lagged)
}

/// Stored events a catch-up reads at once: a long match's backlog is sent a
/// page at a time, so what a socket holds in memory is bounded.
const CATCH_UP_PAGE: i64 = 500;

/// Sends stored events after `last`, a page at a time; false if the
/// socket is gone.
async fn catch_up(db: &Db, id: MatchId, last: &mut i64, sink: &mut (impl SinkExt<Message> + Unpin)) -> bool {
    loop {
        let Ok(rows) = db.events_page(id, *last, CATCH_UP_PAGE).await else {
            return true;
        };
        let full = rows.len() as i64 == CATCH_UP_PAGE;
        for row in rows {
            *last = row.seq;
            // A row this build cannot read is logged and passed over.
            let Ok(e) = MatchEvent::try_from(row).map_err(|e| tracing::warn!("{e}")) else {
                continue;
            };
            if sink.feed(event_frame(&e)).await.is_err() {
                return false;
            }
        }
        if sink.flush().await.is_err() {
            return false;
        }
        if !full {
            return true;
        }
    }
}

/// Runs a client command; returns an error frame if it failed.
async fn handle(runtime: &Runtime, limits: &RateLimits, id: MatchId, body: &str) -> Option<serde_json::Value> {
    let cmd = match serde_json::from_str::<ClientCommand>(body) {
        Ok(ClientCommand::Move { mv }) => UserCommand::Move(mv),
        Ok(ClientCommand::Chat { text }) => UserCommand::Chat(text),
        Ok(ClientCommand::Resign) => UserCommand::Resign,
        Ok(ClientCommand::Draw { action }) => match action.as_str() {
            "offer" => UserCommand::OfferDraw,
            "accept" => UserCommand::AcceptDraw,
            "decline" => UserCommand::DeclineDraw,
            _ => {
                return Some(error_frame(
                    "invalid_command",
                    "draw action must be offer, accept or decline",
                ));
            }
        },
        Ok(ClientCommand::Talk { mode }) => match TalkMode::parse(&mode) {
            Some(mode) => UserCommand::Talk(mode),
            None => {
                return Some(error_frame(
                    "invalid_command",
                    "talk mode must be quiet, chatty or normal",
                ));
            }
        },
        Ok(ClientCommand::Hint) => UserCommand::Hint,
        Ok(ClientCommand::Explain) => UserCommand::Explain,
        Ok(ClientCommand::Takeback) => UserCommand::Takeback,
        Ok(ClientCommand::Puzzle { mv }) => UserCommand::Puzzle(mv),
        Err(e) => return Some(error_frame("invalid_command", &e.to_string())),
    };
    // What costs the persona words or a search is rationed as over HTTP.
    if let Err(e) = super::limits::ration(limits, id, &cmd) {
        return Some(error_frame(e.code, &e.message));
    }
    match runtime.submit(id, cmd).await {
        Ok(()) => None,
        Err(e) => {
            let api = ApiError::from(e);
            Some(error_frame(api.code, &api.message))
        }
    }
}

fn error_frame(code: &str, message: &str) -> serde_json::Value {
    json!({ "type": "error", "data": { "code": code, "message": message } })
}

fn event_frame(e: &MatchEvent) -> Message {
    text(serde_json::to_value(e).unwrap_or_default())
}

fn text(v: serde_json::Value) -> Message {
    Message::Text(v.to_string().into())
}
