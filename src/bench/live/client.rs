//! A live player's requests: a new player, a new match (waiting out a
//! `busy` answer as a client should) with its WebSocket, and the POSTs
//! they are made of.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::flood;
use super::{MatchCtx, Ws};

impl MatchCtx {
    pub(super) async fn new_player(&self) -> anyhow::Result<(Value, String)> {
        let player = self
            .post("/api/players", None, json!({ "name": format!("Load {}", self.seed) }))
            .await?;
        let token = player["token"].as_str().context("a token")?.to_string();
        Ok((player["id"].clone(), token))
    }

    /// A new match once a game ends, waiting out `busy` (its Retry-After)
    /// as a client should; None if the deadline comes first.
    pub(super) async fn rematch(
        &self,
        player_id: &Value,
        token: &str,
        deadline: Instant,
    ) -> anyhow::Result<Option<(String, f64, Ws)>> {
        loop {
            let refused = match self.new_match(player_id, token).await {
                Ok(next) => return Ok(Some(next)),
                Err(e) => e,
            };
            let Some(flood::Busy(secs)) = refused.downcast_ref::<flood::Busy>() else {
                return Err(refused);
            };
            let wait = Duration::from_secs(*secs);
            if Instant::now() + wait >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// A match as White against this player's persona, and its WebSocket (token as subprotocol).
    pub(super) async fn new_match(&self, player_id: &Value, token: &str) -> anyhow::Result<(String, f64, Ws)> {
        let (persona, idle_after) = self.idle_after[self.seed as usize % self.idle_after.len()].clone();
        let body = json!({ "player_id": player_id, "persona_id": persona, "color": "white" });
        let created = self.post("/api/matches", Some(token), body).await?;
        let id = created["state"]["id"].as_str().context("a match id")?.to_string();
        let url = format!("{}/api/matches/{id}/ws", self.ws_base.replacen("http", "ws", 1));
        let mut request = url.into_client_request()?;
        let protocols = format!("kibitz, bearer.{token}").parse()?;
        request.headers_mut().insert("sec-websocket-protocol", protocols);
        let (ws, _) = tokio_tungstenite::connect_async(request).await?;
        Ok((id, idle_after, ws))
    }

    pub(super) async fn post(&self, path: &str, token: Option<&str>, body: Value) -> anyhow::Result<Value> {
        let mut req = self.http.post(format!("{}{path}", self.base)).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let res = req.send().await?;
        let status = res.status();
        if status == reqwest::StatusCode::SERVICE_UNAVAILABLE {
            return Err(flood::Busy::from_headers(res.headers()).into());
        }
        let value: Value = res.json().await?;
        if !status.is_success() {
            bail!("POST {path}: {status} {value}");
        }
        Ok(value)
    }
}
