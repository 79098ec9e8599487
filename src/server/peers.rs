//! What the other nodes of the club must hear at once: the words of an
//! erased memory, which the model threads of the matches they run must
//! forget too (their SQL rows were already rewritten by this node).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};

use super::forward::{RELAYED, Relay};
use crate::runtime::Runtime;
use crate::store::scrub::Forms;

/// Where another node posts the forms to forget.
pub const FORGET_PATH: &str = "/internal/forget";

#[derive(Serialize, Deserialize)]
pub struct ForgetBody {
    forms: Vec<String>,
}

/// Tells every other live node to forget `forms`; a node that cannot be
/// told is named in the log (its threads end with their matches).
pub async fn forget_everywhere(runtime: &Runtime, relay: &Relay, forms: &Forms) {
    let peers = match runtime.peer_urls().await {
        Ok(peers) => peers,
        Err(e) => {
            tracing::warn!("the other nodes were not told to forget an erased memory: {e}");
            return;
        }
    };
    let body = ForgetBody {
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
/// secret); to anyone else the route does not exist.
pub async fn forget(
    State(runtime): State<Runtime>,
    State(relay): State<Arc<Relay>>,
    headers: HeaderMap,
    body: Json<ForgetBody>,
) -> StatusCode {
    if !relay.relayed(&headers) {
        return StatusCode::NOT_FOUND;
    }
    runtime.forget(&Forms::exact(body.0.forms));
    StatusCode::NO_CONTENT
}
