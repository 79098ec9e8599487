//! Endpoints in priority order and one session per match and role: a
//! preflight (1.5 s each, its answer shared for 30 s by the sessions that
//! start next) picks the first that answers, a failed call moves
//! the session to the next endpoint for good (one-way: a session never
//! flips back and forth between models mid-game),
//! the first call may take longer (a cold model), the match's end cancels a
//! call in flight, and every call is recorded (tokens, latency, the request
//! and the answer) through `CallLog`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::watch;

use super::{AnthropicModel, ChatModel, ChatRequest, LlmError, OpenAiModel, Reply, Usage};
use crate::config::{ApiKind, EndpointConfig, LlmConfig, RoleConfig};

/// How long a preflight answer holds for the next sessions that start.
const PREFLIGHT_TTL: Duration = Duration::from_secs(30);

/// One configured endpoint and its client.
pub struct Endpoint {
    pub config: EndpointConfig,
    pub model: Arc<dyn ChatModel>,
}

impl Endpoint {
    pub fn new(config: EndpointConfig, timeout: Duration) -> Endpoint {
        let key = config.api_key();
        let model: Arc<dyn ChatModel> = match config.kind {
            ApiKind::Openai => Arc::new(OpenAiModel::new(&config.url, &config.model, key, timeout)),
            ApiKind::Anthropic => Arc::new(AnthropicModel::new(&config.url, &config.model, key, timeout)),
        };
        Endpoint { config, model }
    }

    /// Answers its model list within `wait`.
    async fn alive(&self, wait: Duration) -> bool {
        let url = match self.config.kind {
            ApiKind::Openai => format!("{}/models", self.config.url.trim_end_matches('/')),
            ApiKind::Anthropic => format!(
                "{}/v1/models",
                self.config.url.trim_end_matches('/').trim_end_matches("/v1")
            ),
        };
        let mut req = reqwest::Client::new().get(url).timeout(wait);
        if let Some(key) = self.config.api_key() {
            req = match self.config.kind {
                ApiKind::Openai => req.bearer_auth(key),
                ApiKind::Anthropic => req.header("x-api-key", key).header("anthropic-version", "2023-06-01"),
            };
        }
        req.send().await.is_ok_and(|r| r.status().is_success())
    }
}

/// One LLM call, as recorded for accounting and the conversation log.
#[derive(Debug, Clone)]
pub struct CallRecord {
    pub match_id: Option<String>,
    pub role: &'static str,
    pub endpoint: String,
    pub model: String,
    /// The messages sent, as JSON.
    pub request: String,
    pub response: String,
    pub usage: Usage,
    pub latency_ms: u64,
    pub error: Option<String>,
}

#[async_trait]
pub trait CallLog: Send + Sync {
    async fn record(&self, call: CallRecord);
}

#[derive(Clone)]
pub struct LlmPool {
    endpoints: Arc<Vec<Endpoint>>,
    timeout: Duration,
    first_timeout: Duration,
    preflight: Duration,
    log: Option<Arc<dyn CallLog>>,
    /// Recent preflight answers: from which endpoint a check started, when,
    /// and which endpoint answered first.
    preflights: Arc<Mutex<HashMap<usize, (Instant, usize)>>>,
}

impl LlmPool {
    /// The configured endpoints, or a local Ollama if none is configured and
    /// one answers; None when there is no model to use.
    pub async fn start(config: &LlmConfig, log: Option<Arc<dyn CallLog>>) -> Option<LlmPool> {
        let mut configs = config.all_endpoints();
        if configs.is_empty() && config.detect_ollama {
            configs.extend(detect_ollama(Duration::from_millis(config.preflight_ms)).await);
        }
        if configs.is_empty() {
            return None;
        }
        let first_timeout = Duration::from_secs(config.first_timeout_secs.max(config.timeout_secs).max(1));
        let endpoints = configs.into_iter().map(|c| Endpoint::new(c, first_timeout)).collect();
        Some(LlmPool {
            endpoints: Arc::new(endpoints),
            timeout: Duration::from_secs(config.timeout_secs.max(1)),
            first_timeout,
            preflight: Duration::from_millis(config.preflight_ms),
            log,
            preflights: Arc::default(),
        })
    }

    /// A new session: its own failover state, calls labelled with the match and role.
    pub fn session(&self, match_id: Option<String>, role: &'static str, sampling: RoleConfig) -> Arc<Session> {
        self.session_from(match_id, role, sampling, None)
    }

    /// A session that starts at the endpoint named `first` (if there is one),
    /// failing over down the list from there.
    pub fn session_from(
        &self,
        match_id: Option<String>,
        role: &'static str,
        sampling: RoleConfig,
        first: Option<&str>,
    ) -> Arc<Session> {
        let start = first
            .and_then(|name| self.endpoints.iter().position(|e| e.config.name == name))
            .unwrap_or(0);
        let (cancel, cancelled) = watch::channel(false);
        Arc::new(Session {
            pool: self.clone(),
            match_id,
            role,
            sampling,
            current: AtomicUsize::new(start),
            checked: AtomicBool::new(false),
            called: AtomicBool::new(false),
            cancel,
            cancelled,
        })
    }

    fn recent_preflight(&self, start: usize) -> Option<usize> {
        let cache = self.preflights.lock().ok()?;
        let (at, chosen) = cache.get(&start)?;
        (at.elapsed() < PREFLIGHT_TTL).then_some(*chosen)
    }

    /// Names, models and URLs in priority order, for the start-up log.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self
            .endpoints
            .iter()
            .map(|e| format!("{} ({} at {})", e.config.name, e.config.model, e.config.url))
            .collect();
        names.join(", then ")
    }
}

/// A local Ollama on its default port, with the first model it has.
async fn detect_ollama(wait: Duration) -> Option<EndpointConfig> {
    let tags = reqwest::Client::new()
        .get("http://127.0.0.1:11434/api/tags")
        .timeout(wait)
        .send()
        .await
        .ok()?;
    let body: serde_json::Value = tags.json().await.ok()?;
    let model = body["models"].as_array()?.first()?["name"].as_str()?.to_string();
    tracing::info!("found a local Ollama with {model}");
    Some(EndpointConfig {
        name: "ollama".into(),
        kind: ApiKind::Openai,
        url: "http://127.0.0.1:11434/v1".into(),
        model,
        api_key_env: None,
    })
}

pub struct Session {
    pool: LlmPool,
    match_id: Option<String>,
    role: &'static str,
    pub sampling: RoleConfig,
    /// The endpoint in use; it only ever moves forward.
    current: AtomicUsize,
    checked: AtomicBool,
    called: AtomicBool,
    cancel: watch::Sender<bool>,
    cancelled: watch::Receiver<bool>,
}

impl Session {
    /// The endpoint and model now serving this session.
    pub fn serving(&self) -> Option<(String, String)> {
        let e = self.pool.endpoints.get(self.current.load(Ordering::SeqCst))?;
        Some((e.config.name.clone(), e.config.model.clone()))
    }

    /// Stops a call in flight and every later one (the match ended).
    pub fn cancel(&self) {
        let _ = self.cancel.send(true);
    }

    /// Skips endpoints that do not answer their model list in time. Once.
    /// A match opens several sessions at once (main, subconscious); they
    /// share a recent answer rather than each waiting on a dead endpoint.
    async fn preflight(&self) {
        if self.checked.swap(true, Ordering::SeqCst) {
            return;
        }
        let start = self.current.load(Ordering::SeqCst);
        if let Some(chosen) = self.pool.recent_preflight(start) {
            self.current.fetch_max(chosen, Ordering::SeqCst);
            return;
        }
        let endpoints = &self.pool.endpoints;
        // None answering: keep the first; its calls will say why.
        let mut chosen = start;
        for (i, e) in endpoints.iter().enumerate().skip(start) {
            if e.alive(self.pool.preflight).await {
                chosen = i;
                break;
            }
            tracing::warn!(endpoint = %e.config.name, role = self.role, "LLM endpoint failed its preflight");
        }
        self.current.fetch_max(chosen, Ordering::SeqCst);
        if let Ok(mut cache) = self.pool.preflights.lock() {
            cache.insert(start, (Instant::now(), chosen));
        }
    }

    async fn call_one(&self, e: &Endpoint, req: &ChatRequest) -> Result<Reply, LlmError> {
        let first = !self.called.swap(true, Ordering::SeqCst);
        let limit = if first {
            self.pool.first_timeout
        } else {
            self.pool.timeout
        };
        let mut cancelled = self.cancelled.clone();
        if *cancelled.borrow() {
            return Err(LlmError::Cancelled);
        }
        tokio::select! {
            r = tokio::time::timeout(limit, e.model.chat(req)) => r.unwrap_or(Err(LlmError::Timeout(limit))),
            _ = cancelled.changed() => Err(LlmError::Cancelled),
        }
    }

    async fn record(&self, e: &Endpoint, req: &ChatRequest, result: &Result<Reply, LlmError>, took: Duration) {
        match result {
            Ok(r) => {
                crate::telemetry::llm_call(self.role, "answered", r.usage.prompt_tokens, r.usage.completion_tokens)
            }
            Err(_) => crate::telemetry::llm_call(self.role, "failed", 0, 0),
        }
        let Some(log) = &self.pool.log else { return };
        let mut record = self.record_of(e, req, took);
        match result {
            Ok(r) => (record.response, record.usage) = (r.content.clone(), r.usage),
            Err(err) => record.error = Some(err.to_string()),
        }
        log.record(record).await;
    }

    /// A call's record with its request, answer and usage still empty.
    fn record_of(&self, e: &Endpoint, req: &ChatRequest, took: Duration) -> CallRecord {
        CallRecord {
            match_id: self.match_id.clone(),
            role: self.role,
            endpoint: e.config.name.clone(),
            model: e.config.model.clone(),
            request: serde_json::to_string(&req.messages).unwrap_or_default(),
            response: String::new(),
            usage: Usage::default(),
            latency_ms: took.as_millis() as u64,
            error: None,
        }
    }
}

/// A call whose caller may stop waiting (its deadline passed, a newer
/// trigger called it off): the future is dropped mid-call and would leave
/// no trace, so the record is written from here unless disarmed.
struct Unfinished {
    log: Option<Arc<dyn CallLog>>,
    record: Option<CallRecord>,
    started: Instant,
    role: &'static str,
    armed: bool,
}

impl Unfinished {
    fn arm(session: &Session, e: &Endpoint, req: &ChatRequest) -> Unfinished {
        let log = session.pool.log.clone();
        let record = log.as_ref().map(|_| CallRecord {
            error: Some("abandoned: the caller stopped waiting (a deadline, or a newer trigger)".into()),
            ..session.record_of(e, req, Duration::ZERO)
        });
        Unfinished {
            log,
            record,
            started: Instant::now(),
            role: session.role,
            armed: true,
        }
    }

    fn disarm(&mut self) {
        self.record = None;
        self.armed = false;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if self.armed {
            crate::telemetry::llm_call(self.role, "abandoned", 0, 0);
        }
        let (Some(log), Some(mut record)) = (self.log.take(), self.record.take()) else {
            return;
        };
        record.latency_ms = self.started.elapsed().as_millis() as u64;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { log.record(record).await });
        }
    }
}

#[async_trait]
impl ChatModel for Session {
    fn describe(&self) -> String {
        self.serving()
            .map_or_else(|| "no endpoint".into(), |(name, model)| format!("{model} on {name}"))
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Reply, LlmError> {
        self.preflight().await;
        let mut last = LlmError::Unreachable("no endpoint configured".into());
        let endpoints = &self.pool.endpoints;
        for (i, e) in endpoints.iter().enumerate().skip(self.current.load(Ordering::SeqCst)) {
            let started = Instant::now();
            let mut unfinished = Unfinished::arm(self, e, req);
            let result = self.call_one(e, req).await;
            unfinished.disarm();
            self.record(e, req, &result, started.elapsed()).await;
            match result {
                Ok(reply) => return Ok(reply),
                Err(err) if !err.is_endpoint_failure() => return Err(err),
                Err(err) => {
                    tracing::warn!(endpoint = %e.config.name, role = self.role, "LLM call failed ({err}); failing over");
                    // Forward only, but never past the last endpoint: later
                    // calls try it again rather than give up on the match.
                    self.current
                        .fetch_max((i + 1).min(endpoints.len() - 1), Ordering::SeqCst);
                    last = err;
                }
            }
        }
        Err(last)
    }
}
