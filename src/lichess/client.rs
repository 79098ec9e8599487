//! Lichess's HTTP API, as one BOT account (or a signed-in player) uses it:
//! NDJSON streams read line by line (the empty keep-alive lines skipped),
//! form posts, and the status codes the API documents. After a 429 no
//! request of this client is made for the wait the API asks (a minute).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt};
use serde::de::DeserializeOwned;

use super::wire::{AccessToken, Account, ChatEntry, DeclineReason, Room};

/// A stream that says nothing for this long (Lichess sends a keep-alive
/// line every 7 seconds) is taken as dropped.
const STREAM_SILENCE: Duration = Duration::from_secs(30);
/// A request that is not a stream gets this long.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum LichessError {
    #[error("Lichess asked us to slow down (HTTP 429): no request for {0:?}")]
    RateLimited(Duration),
    #[error("Lichess answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("cannot reach Lichess: {0}")]
    Http(String),
    #[error("Lichess sent a line this client cannot read ({error}): {line}")]
    Json { error: String, line: String },
    #[error("the stream was silent for {0:?}")]
    Silent(Duration),
}

impl LichessError {
    fn http(e: reqwest::Error) -> LichessError {
        // reqwest's message names the URL, never the bearer token.
        LichessError::Http(e.without_url().to_string())
    }
}

/// An API token: shown to nobody (its Debug is redacted).
#[derive(Clone)]
pub struct Token(Arc<str>);

impl Token {
    pub fn new(token: impl Into<Arc<str>>) -> Token {
        Token(token.into())
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// When requests may be made again after a 429.
#[derive(Debug, Default)]
struct RateGate {
    closed_until: Mutex<Option<Instant>>,
}

impl RateGate {
    async fn wait(&self) {
        let until = *self.closed_until.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(until) = until {
            tokio::time::sleep_until(until.into()).await;
        }
    }

    fn close_for(&self, wait: Duration) {
        *self.closed_until.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now() + wait);
    }
}

#[derive(Debug, Clone)]
pub struct LichessClient {
    http: reqwest::Client,
    base: Arc<str>,
    token: Option<Token>,
    gate: Arc<RateGate>,
    rate_limit_wait: Duration,
}

impl LichessClient {
    /// A client of the Lichess at `base` (`https://lichess.org`), acting
    /// with `token` if given.
    pub fn new(base: &str, token: Option<Token>, rate_limit_wait: Duration) -> LichessClient {
        let http = reqwest::Client::builder()
            .user_agent(concat!("kibitz/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .expect("a reqwest client with rustls builds");
        LichessClient {
            http,
            base: base.trim_end_matches('/').into(),
            token,
            gate: Arc::default(),
            rate_limit_wait,
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// The same server, as another token.
    pub fn with_token(&self, token: Token) -> LichessClient {
        LichessClient {
            token: Some(token),
            gate: Arc::default(),
            ..self.clone()
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self.http.request(method, format!("{}{path}", self.base));
        match &self.token {
            Some(Token(token)) => request.bearer_auth(token),
            None => request,
        }
    }

    /// Sends once the gate is open; a 429 closes it, any other error status
    /// comes back with the body Lichess gave.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<reqwest::Response, LichessError> {
        self.gate.wait().await;
        let response = request.send().await.map_err(LichessError::http)?;
        let status = response.status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            self.gate.close_for(self.rate_limit_wait);
            tracing::warn!("Lichess answered 429: no request for {:?}", self.rate_limit_wait);
            return Err(LichessError::RateLimited(self.rate_limit_wait));
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(LichessError::Status {
                status: status.as_u16(),
                body: body.chars().take(300).collect(),
            });
        }
        Ok(response)
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> Result<(), LichessError> {
        let request = self.request(reqwest::Method::POST, path).timeout(REQUEST_TIMEOUT);
        let request = if form.is_empty() { request } else { request.form(form) };
        self.send(request).await.map(drop)
    }

    async fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, LichessError> {
        let request = self.request(reqwest::Method::GET, path).timeout(REQUEST_TIMEOUT);
        let text = self.send(request).await?.text().await.map_err(LichessError::http)?;
        serde_json::from_str(&text).map_err(|e| LichessError::Json {
            error: e.to_string(),
            line: text.chars().take(200).collect(),
        })
    }

    /// An NDJSON stream, one message a line; it ends when Lichess closes it
    /// or is silent for too long.
    pub async fn stream<T: DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<impl Stream<Item = Result<T, LichessError>> + Send + use<T>, LichessError> {
        // The headers come within the request timeout; the body may flow for hours.
        let response = tokio::time::timeout(REQUEST_TIMEOUT, self.send(self.request(reqwest::Method::GET, path)))
            .await
            .map_err(|_| LichessError::Silent(REQUEST_TIMEOUT))??;
        Ok(ndjson(response.bytes_stream()))
    }

    pub async fn account(&self) -> Result<Account, LichessError> {
        self.get_json("/api/account").await
    }

    pub async fn accept(&self, challenge: &str) -> Result<(), LichessError> {
        self.post(&format!("/api/challenge/{challenge}/accept"), &[]).await
    }

    pub async fn decline(&self, challenge: &str, reason: DeclineReason) -> Result<(), LichessError> {
        let path = format!("/api/challenge/{challenge}/decline");
        self.post(&path, &[("reason", reason.as_str())]).await
    }

    pub async fn play(&self, game: &str, uci: &str, offering_draw: bool) -> Result<(), LichessError> {
        let draw = if offering_draw { "?offeringDraw=true" } else { "" };
        self.post(&format!("/api/bot/game/{game}/move/{uci}{draw}"), &[]).await
    }

    pub async fn chat(&self, game: &str, room: Room, text: &str) -> Result<(), LichessError> {
        let path = format!("/api/bot/game/{game}/chat");
        self.post(&path, &[("room", room.as_str()), ("text", text)]).await
    }

    pub async fn read_chat(&self, game: &str) -> Result<Vec<ChatEntry>, LichessError> {
        self.get_json(&format!("/api/bot/game/{game}/chat")).await
    }

    pub async fn resign(&self, game: &str) -> Result<(), LichessError> {
        self.post(&format!("/api/bot/game/{game}/resign"), &[]).await
    }

    pub async fn abort(&self, game: &str) -> Result<(), LichessError> {
        self.post(&format!("/api/bot/game/{game}/abort"), &[]).await
    }

    /// Claims the win of a game the opponent left (once Lichess allows it).
    pub async fn claim_victory(&self, game: &str) -> Result<(), LichessError> {
        self.post(&format!("/api/bot/game/{game}/claim-victory"), &[]).await
    }

    /// Offers or accepts a draw (`yes`), or declines the opponent's.
    pub async fn draw(&self, game: &str, yes: bool) -> Result<(), LichessError> {
        let answer = if yes { "yes" } else { "no" };
        self.post(&format!("/api/bot/game/{game}/draw/{answer}"), &[]).await
    }

    pub async fn takeback(&self, game: &str, yes: bool) -> Result<(), LichessError> {
        let answer = if yes { "yes" } else { "no" };
        self.post(&format!("/api/bot/game/{game}/takeback/{answer}"), &[]).await
    }

    /// Lets this client's token go (`DELETE /api/token`).
    pub async fn revoke(&self) -> Result<(), LichessError> {
        let request = self
            .request(reqwest::Method::DELETE, "/api/token")
            .timeout(REQUEST_TIMEOUT);
        self.send(request).await.map(drop)
    }

    /// Trades a sign-in's authorization code for the player's token
    /// (OAuth2 with PKCE: the verifier proves the same client asked).
    pub async fn access_token(
        &self,
        code: &str,
        verifier: &str,
        redirect_uri: &str,
        client_id: &str,
    ) -> Result<AccessToken, LichessError> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", redirect_uri),
            ("client_id", client_id),
        ];
        let request = self
            .http
            .post(format!("{}/api/token", self.base))
            .timeout(REQUEST_TIMEOUT)
            .form(&form);
        let text = self.send(request).await?.text().await.map_err(LichessError::http)?;
        serde_json::from_str(&text).map_err(|e| LichessError::Json {
            error: e.to_string(),
            line: "<the token answer, not shown>".into(),
        })
    }
}

/// Bytes in, one parsed message per non-empty line out.
fn ndjson<T: DeserializeOwned>(
    bytes: impl Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
) -> impl Stream<Item = Result<T, LichessError>> + Send {
    let state = (Box::pin(bytes), Vec::<u8>::new(), false);
    futures_util::stream::unfold(state, |(mut bytes, mut buf, mut ended)| async move {
        loop {
            if let Some(end) = buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buf.drain(..=end).collect();
                let line = String::from_utf8_lossy(&line);
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                let parsed = serde_json::from_str(line).map_err(|e| LichessError::Json {
                    error: e.to_string(),
                    line: line.chars().take(200).collect(),
                });
                return Some((parsed, (bytes, buf, ended)));
            }
            if ended {
                return None;
            }
            match tokio::time::timeout(STREAM_SILENCE, bytes.next()).await {
                Ok(Some(Ok(chunk))) => buf.extend_from_slice(&chunk),
                Ok(Some(Err(e))) => return Some((Err(LichessError::http(e)), (bytes, buf, true))),
                // A last line without its newline still counts.
                Ok(None) => {
                    ended = true;
                    buf.push(b'\n');
                }
                Err(_) => return Some((Err(LichessError::Silent(STREAM_SILENCE)), (bytes, buf, true))),
            }
        }
    })
}
