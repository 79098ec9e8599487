//! What the other nodes of the club must hear at once: the words of an
//! erased memory, which the model threads of its owner's matches they run
//! must forget too (their SQL rows were already rewritten by this node).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};

use super::forward::{RELAYED, Relay};
use crate::ids::PlayerId;
use crate::runtime::Runtime;
use crate::store::scrub::Forms;

/// Where another node posts the forms to forget. Under `/internal/`,
/// which a balancer in front of the club refuses (deploy/nginx.conf).
pub const FORGET_PATH: &str = "/internal/forget";

/// The most a peer's body may hold: an erased memory's forms are a few
/// lines of text.
const FORGET_BODY_LIMIT: usize = 64 * 1024;

#[derive(Serialize, Deserialize)]
pub struct ForgetBody {
    /// Whose memory it was: only their matches' threads forget it (none:
    /// the persona's lore, forgotten by every match).
    player: Option<PlayerId>,
    forms: Vec<String>,
}

/// Tells every other live node to forget `forms` in `owner`'s matches; a
/// node that cannot be told is named in the log (its threads end with
/// their matches).
pub async fn forget_everywhere(runtime: &Runtime, relay: &Relay, owner: Option<PlayerId>, forms: &Forms) {
    let peers = match runtime.peer_urls().await {
        Ok(peers) => peers,
        Err(e) => {
            tracing::warn!("the other nodes were not told to forget an erased memory: {e}");
            return;
        }
    };
    let body = ForgetBody {
        player: owner,
        forms: forms.iter().map(str::to_string).collect(),
    };
    for url in peers {
        let mut sent = relay.http().post(format!("{url}{FORGET_PATH}")).json(&body);
        if let Some(secret) = relay.secret() {
            sent = sent.header(RELAYED, secret);
        }
        match sent.send().await {
            Ok(r) if r.status().is_success() => {}
            Ok(r) => tracing::warn!("node {url} did not forget an erased memory: {}", r.status()),
            Err(e) => tracing::warn!("node {url} was not told to forget an erased memory: {e}"),
        }
    }
}

/// `POST /internal/forget`, from another node of the club only (its
/// secret, checked before a byte of the body is read); to anyone else the
/// route does not exist.
pub async fn forget(
    State(runtime): State<Runtime>,
    State(relay): State<Arc<Relay>>,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    if !relay.relayed(&headers) {
        return StatusCode::NOT_FOUND;
    }
    let Ok(bytes) = axum::body::to_bytes(body, FORGET_BODY_LIMIT).await else {
        return StatusCode::PAYLOAD_TOO_LARGE;
    };
    let Ok(body) = serde_json::from_slice::<ForgetBody>(&bytes) else {
        return StatusCode::UNPROCESSABLE_ENTITY;
    };
    runtime.forget(body.player, &Forms::exact(body.forms));
    StatusCode::NO_CONTENT
}
