//! The fake's HTTP side: one handler that finds each request's operation in
//! the specification, honours a planted 429, logs it, checks its form body
//! and its answer against the schemas, and answers as Lichess does.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use super::world::{Logged, World};

type Shared = Arc<Mutex<World>>;

pub fn router(world: Shared) -> Router {
    Router::new().fallback(handle).with_state(world)
}

/// What a route answers: JSON with a status, a redirect, or a stream.
enum Answer {
    Json(u16, Value),
    Empty(u16),
    Redirect(String),
    Stream(mpsc::UnboundedReceiver<String>),
}

async fn handle(State(world): State<Shared>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let path = uri.path().to_string();
    let query = parse_form(uri.query().unwrap_or("").as_bytes());
    let form = parse_form(&body);
    let mut w = world.lock().unwrap();
    let logged = |w: &mut World, status: u16| {
        w.log.push(Logged {
            at: Instant::now(),
            method: method.to_string(),
            path: path.clone(),
            form: form.clone(),
            status,
        });
    };
    if let Some(limit) = w
        .rate_limits
        .iter_mut()
        .find(|(prefix, n)| *n > 0 && path.starts_with(prefix.as_str()))
    {
        limit.1 -= 1;
        logged(&mut w, 429);
        return (
            StatusCode::TOO_MANY_REQUESTS,
            axum::Json(json!({"error": "Too many requests. Try again later."})),
        )
            .into_response();
    }
    if path != "/oauth"
        && let Err(e) = w.spec.check_form(method.as_str(), &path, &form)
    {
        w.violations.push(e);
    }
    let user = bearer(&headers).and_then(|t| w.tokens.get(&t).cloned());
    let answer = route(&mut w, &method, &path, &query, &form, user);
    match answer {
        Answer::Json(status, body) => {
            logged(&mut w, status);
            // 401 and 429 are the API's for every path, not listed per path.
            let content = content_type(&method, &path);
            if status != 401
                && let Err(e) = w.spec.check_response(method.as_str(), &path, status, content, &body)
            {
                w.violations.push(e);
            }
            (StatusCode::from_u16(status).unwrap(), axum::Json(body)).into_response()
        }
        Answer::Empty(status) => {
            logged(&mut w, status);
            StatusCode::from_u16(status).unwrap().into_response()
        }
        Answer::Redirect(to) => {
            logged(&mut w, 303);
            (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response()
        }
        Answer::Stream(rx) => {
            logged(&mut w, 200);
            let body = Body::from_stream(keep_alive(rx));
            ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response()
        }
    }
}

/// The specification's content type of an answer to `method path`.
fn content_type(method: &Method, path: &str) -> &'static str {
    if method == Method::GET && path.ends_with("/chat") {
        "application/x-ndjson"
    } else {
        "application/json"
    }
}

fn route(
    w: &mut World,
    method: &Method,
    path: &str,
    query: &[(String, String)],
    form: &[(String, String)],
    user: Option<String>,
) -> Answer {
    let ok = || Answer::Json(200, json!({"ok": true}));
    let seg: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if path == "/oauth" && method == Method::GET {
        return authorize(w, query);
    }
    if path == "/api/token" && method == Method::POST {
        return token(w, form);
    }
    let Some(user) = user else {
        return Answer::Json(401, json!({"error": "No such token"}));
    };
    match (method.as_str(), seg.as_slice()) {
        ("DELETE", ["api", "token"]) => {
            w.tokens.retain(|_, u| *u != user);
            Answer::Empty(204)
        }
        ("GET", ["api", "account"]) => {
            let u = &w.users[&user];
            let mut account =
                json!({"id": u.id, "username": u.name, "url": format!("https://lichess.org/@/{}", u.name)});
            if let Some(t) = &u.title {
                account["title"] = json!(t);
            }
            Answer::Json(200, account)
        }
        ("GET", ["api", "stream", "event"]) => {
            let (tx, rx) = mpsc::unbounded_channel();
            w.event_streams.push((user.clone(), tx));
            let open: Vec<String> = w
                .challenges
                .iter()
                .filter(|(_, (c, s, _))| s == "created" && c["destUser"]["id"] == user.as_str())
                .map(|(id, _)| id.clone())
                .collect();
            for id in open {
                let c = w.challenges[&id].0.clone();
                w.push_event(&user, json!({"type": "challenge", "challenge": c}));
            }
            let playing: Vec<String> = w
                .games
                .values()
                .filter(|g| g.status == "started" && (g.white.id == user || g.black.id == user))
                .map(|g| g.id.clone())
                .collect();
            for id in playing {
                let info = w.game_info(&id, &user);
                w.push_event(&user, json!({"type": "gameStart", "game": info}));
            }
            Answer::Stream(rx)
        }
        ("POST", ["api", "challenge", id, "accept"]) => match w.accept(id) {
            true => ok(),
            false => Answer::Json(404, json!({"error": "Not found"})),
        },
        ("POST", ["api", "challenge", id, "decline"]) => {
            let reason = form.iter().find(|(k, _)| k == "reason").map(|(_, v)| v.clone());
            match w.decline(id, reason) {
                true => ok(),
                false => Answer::Json(404, json!({"error": "Not found"})),
            }
        }
        (_, ["api", "bot", "game", ..])
            if !seg
                .get(3)
                .is_some_and(|id| w.games.contains_key(*id) || *id == "stream") =>
        {
            Answer::Json(404, json!({"error": "Not found"}))
        }
        ("GET", ["api", "bot", "game", "stream", id]) => {
            let Some(_) = w.games.get(*id) else {
                return Answer::Json(404, json!({"error": "Not found"}));
            };
            let (tx, rx) = mpsc::unbounded_channel();
            let full = w.full_json(id);
            w.games.get_mut(*id).unwrap().streams.push(tx);
            w.push_game(id, full);
            Answer::Stream(rx)
        }
        ("POST", ["api", "bot", "game", id, "move", uci]) => match w.play(id, &user, uci) {
            Ok(()) => ok(),
            Err(e) => Answer::Json(400, json!({"error": e})),
        },
        ("POST", ["api", "bot", "game", id, "chat"]) => {
            let get = |k: &str| {
                form.iter()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            w.say(id, &get("room"), &user, &get("text"));
            ok()
        }
        ("GET", ["api", "bot", "game", id, "chat"]) => {
            let lines: Vec<Value> = w.games[*id]
                .chat
                .iter()
                .filter(|(room, ..)| room == "player")
                .map(|(_, u, t)| json!({"user": u, "text": t}))
                .collect();
            Answer::Json(200, Value::Array(lines))
        }
        ("POST", ["api", "bot", "game", id, "resign"]) => {
            let g = w.games.get_mut(*id).unwrap();
            g.status = "resign";
            g.winner = Some(if g.white.id == user { "black" } else { "white" });
            w.after_change(id);
            ok()
        }
        ("POST", ["api", "bot", "game", id, "abort"]) => {
            w.games.get_mut(*id).unwrap().status = "aborted";
            w.after_change(id);
            ok()
        }
        ("POST", ["api", "bot", "game", id, "draw", answer]) => {
            let g = w.games.get_mut(*id).unwrap();
            let bot_white = g.white.id == user;
            let theirs = if bot_white { g.bdraw } else { g.wdraw };
            match (*answer, theirs) {
                ("yes", true) => g.status = "draw",
                ("yes", false) => *(if bot_white { &mut g.wdraw } else { &mut g.bdraw }) = true,
                _ => *(if bot_white { &mut g.bdraw } else { &mut g.wdraw }) = false,
            }
            w.after_change(id);
            ok()
        }
        ("POST", ["api", "bot", "game", id, "takeback", answer]) => {
            w.answer_takeback(id, &user, *answer == "yes");
            ok()
        }
        ("POST", ["api", "bot", "game", id, "claim-victory"]) => {
            let g = w.games.get_mut(*id).unwrap();
            if !g.opponent_gone {
                return Answer::Json(400, json!({"error": "The opponent has not left"}));
            }
            g.status = "timeout";
            g.winner = Some(if g.white.id == user { "white" } else { "black" });
            w.after_change(id);
            ok()
        }
        _ => Answer::Json(404, json!({"error": format!("the fake has no {method} {path}")})),
    }
}

/// `GET /oauth`: the person signs in and approves at once; back to the
/// client with a code bound to their PKCE challenge.
fn authorize(w: &mut World, query: &[(String, String)]) -> Answer {
    let get = |k: &str| query.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    let (Some(redirect), Some(challenge), Some(state)) = (get("redirect_uri"), get("code_challenge"), get("state"))
    else {
        return Answer::Json(400, json!({"error": "invalid_request"}));
    };
    if get("response_type").as_deref() != Some("code")
        || get("code_challenge_method").as_deref() != Some("S256")
        || get("client_id").is_none()
    {
        return Answer::Json(400, json!({"error": "invalid_request"}));
    }
    let Some(user) = w.signing_in.clone() else {
        return Answer::Redirect(format!("{redirect}?error=access_denied&state={state}"));
    };
    let code = format!("liu_{}", w.new_id());
    w.codes.insert(code.clone(), (user, challenge, redirect.clone()));
    Answer::Redirect(format!("{redirect}?code={code}&state={state}"))
}

/// `POST /api/token`: the code for a token, if the verifier hashes to the
/// challenge the code was made for.
fn token(w: &mut World, form: &[(String, String)]) -> Answer {
    let get = |k: &str| {
        form.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let Some((user, challenge, redirect)) = w.codes.remove(&get("code")) else {
        return Answer::Json(
            400,
            json!({"error": "invalid_grant", "error_description": "unknown code"}),
        );
    };
    let hashed =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(get("code_verifier").as_bytes()));
    if hashed != challenge || redirect != get("redirect_uri") || get("grant_type") != "authorization_code" {
        return Answer::Json(
            400,
            json!({"error": "invalid_grant", "error_description": "code_verifier or redirect_uri does not match"}),
        );
    }
    let token = format!("lio_{}", w.new_id());
    w.tokens.insert(token.clone(), user);
    Answer::Json(
        200,
        json!({"token_type": "Bearer", "access_token": token, "expires_in": 31_536_000}),
    )
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    value.strip_prefix("Bearer ").map(str::to_string)
}

/// `a=1&b=two+words` as pairs, percent-decoded.
fn parse_form(bytes: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.replace('+', " ").into_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).map(String::from_utf8_lossy);
        if bytes[i] == b'%'
            && let Some(Ok(b)) = hex.map(|h| u8::from_str_radix(&h, 16))
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The stream's lines, with an empty keep-alive line after a quiet second
/// (Lichess sends one every 7 s).
fn keep_alive(rx: mpsc::UnboundedReceiver<String>) -> impl futures_util::Stream<Item = Result<String, Infallible>> {
    futures_util::stream::unfold(rx, |mut rx| async move {
        match tokio::time::timeout(Duration::from_secs(1), rx.recv()).await {
            Ok(Some(line)) => Some((Ok(line), rx)),
            Ok(None) => None,
            Err(_) => Some((Ok("\n".to_string()), rx)),
        }
    })
}
