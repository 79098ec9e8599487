//! Fake LLM servers that speak the real wire formats (OpenAI chat
//! completions, Anthropic Messages) and misbehave on request: errors, slow
//! answers, truncated or non-JSON bodies. For what a real local model cannot
//! be made to do on cue; the real one is in `llama.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq)]
pub enum Behaviour {
    /// Answers with this assistant text.
    Answer(String),
    /// HTTP 500.
    Fail,
    /// Waits this long, then answers.
    Slow(Duration, String),
    /// Waits `wait` before answering a request whose body holds `needle`;
    /// answers any other at once.
    SlowWhen {
        needle: String,
        wait: Duration,
        answer: String,
    },
    /// A 200 whose body stops halfway.
    Truncated,
    /// A 200 whose body is not JSON at all.
    NotJson,
    /// The answer whose needle occurs in the request body, else the default.
    Keyed(Vec<(String, String)>, String),
    /// Asked to stream, sends `answer` a few characters at a time, one piece
    /// every `every`, as server-sent events; else answers whole.
    Streamed { answer: String, every: Duration },
    /// A subconscious that searches for `query`, then provides the first
    /// memory id the search returned with `reason`; other calls get `answer`.
    Recaller {
        query: String,
        reason: String,
        answer: String,
    },
}

#[derive(Default)]
pub struct Calls {
    pub chat: AtomicUsize,
    pub models: AtomicUsize,
    /// The request bodies, in order.
    pub bodies: Mutex<Vec<Value>>,
    pub headers: Mutex<Vec<HeaderMap>>,
}

struct Fake {
    /// Behaviour per call, in order; the last one repeats.
    script: Mutex<Vec<Behaviour>>,
    /// If set, GET /models waits this long (a dead-looking endpoint).
    models_delay: Option<Duration>,
    calls: Arc<Calls>,
}

pub struct FakeLlm {
    /// Up to `/v1` for OpenAI; the host for Anthropic.
    pub url: String,
    pub calls: Arc<Calls>,
}

impl FakeLlm {
    pub async fn openai(script: Vec<Behaviour>) -> FakeLlm {
        Self::start(script, None, false).await
    }

    pub async fn openai_with_slow_models(script: Vec<Behaviour>, delay: Duration) -> FakeLlm {
        Self::start(script, Some(delay), false).await
    }

    pub async fn anthropic(script: Vec<Behaviour>) -> FakeLlm {
        Self::start(script, None, true).await
    }

    async fn start(script: Vec<Behaviour>, models_delay: Option<Duration>, anthropic: bool) -> FakeLlm {
        let calls = Arc::new(Calls::default());
        let state = Arc::new(Fake {
            script: Mutex::new(script),
            models_delay,
            calls: calls.clone(),
        });
        let router = if anthropic {
            Router::new()
                .route("/v1/messages", post(anthropic_messages))
                .route("/v1/models", get(models))
        } else {
            Router::new()
                .route("/v1/chat/completions", post(openai_chat))
                .route("/v1/models", get(models))
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router.with_state(state)).await;
        });
        let url = if anthropic {
            format!("http://{addr}")
        } else {
            format!("http://{addr}/v1")
        };
        FakeLlm { url, calls }
    }
}

impl Fake {
    fn next(&self) -> Behaviour {
        let mut script = self.script.lock().unwrap();
        if script.len() > 1 {
            script.remove(0)
        } else {
            script[0].clone()
        }
    }

    fn note(&self, headers: HeaderMap, body: Value) {
        self.calls.chat.fetch_add(1, Ordering::SeqCst);
        self.calls.bodies.lock().unwrap().push(body);
        self.calls.headers.lock().unwrap().push(headers);
    }
}

async fn models(State(fake): State<Arc<Fake>>) -> Json<Value> {
    fake.calls.models.fetch_add(1, Ordering::SeqCst);
    if let Some(d) = fake.models_delay {
        tokio::time::sleep(d).await;
    }
    Json(json!({"object": "list", "data": [{"id": "fake", "object": "model"}]}))
}

/// The answer for `text` in either wire format, or the misbehaviour.
/// An OpenAI reply that calls one tool.
fn tool_reply(name: &str, arguments: Value) -> Response {
    Json(json!({
        "id": "chatcmpl-fake", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 9}
    }))
    .into_response()
}

/// The first UUID in a tool result the request carries back.
fn first_id_in_tool_results(body: &Value) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let text = messages.iter().rev().find(|m| m["role"] == "tool")?["content"]
        .as_str()?
        .to_string();
    text.split(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
        .find(|w| w.len() == 36 && w.matches('-').count() == 4)
        .map(str::to_string)
}

async fn respond(behaviour: Behaviour, body: &Value, wrap: impl Fn(&str) -> Value) -> Response {
    match behaviour {
        Behaviour::Recaller { query, reason, answer } => {
            let is_subconscious = body["tools"].to_string().contains("search_memories");
            if !is_subconscious {
                return Json(wrap(&answer)).into_response();
            }
            match first_id_in_tool_results(body) {
                None if !body["messages"].to_string().contains("\"tool\"") => {
                    tool_reply("search_memories", json!({ "query": query }))
                }
                found => {
                    let memories: Vec<Value> = found
                        .into_iter()
                        .map(|id| json!({"id": id, "reason": reason}))
                        .collect();
                    tool_reply("provide", json!({ "memories": memories }))
                }
            }
        }
        Behaviour::Keyed(keys, default) => {
            let text = body.to_string();
            let answer = keys
                .iter()
                .find(|(needle, _)| text.contains(needle.as_str()))
                .map_or(&default, |(_, a)| a);
            Json(wrap(answer)).into_response()
        }
        Behaviour::Answer(text) => Json(wrap(&text)).into_response(),
        Behaviour::Streamed { answer, every } if body["stream"] == true => streamed(answer, every),
        Behaviour::Streamed { answer, .. } => Json(wrap(&answer)).into_response(),
        Behaviour::Slow(d, text) => {
            tokio::time::sleep(d).await;
            Json(wrap(&text)).into_response()
        }
        Behaviour::SlowWhen { needle, wait, answer } => {
            if body.to_string().contains(&needle) {
                tokio::time::sleep(wait).await;
            }
            Json(wrap(&answer)).into_response()
        }
        Behaviour::Fail => (StatusCode::INTERNAL_SERVER_ERROR, "model crashed").into_response(),
        Behaviour::Truncated => {
            let full = wrap("{\"thinking\": \"cut\"}").to_string();
            (StatusCode::OK, full[..full.len() / 2].to_string()).into_response()
        }
        Behaviour::NotJson => (StatusCode::OK, "<html>gateway hiccup</html>").into_response(),
    }
}

/// Characters per streamed piece.
const PIECE: usize = 6;

/// An OpenAI streamed completion: a role chunk, the text in pieces, a usage
/// chunk, `[DONE]`.
fn streamed(answer: String, every: Duration) -> Response {
    let chars: Vec<char> = answer.chars().collect();
    let mut events = vec![json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}}]})];
    events.extend(chars.chunks(PIECE).map(|piece| {
        let text: String = piece.iter().collect();
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
    }));
    events.push(
        json!({"choices": [], "usage": {"prompt_tokens": 42, "completion_tokens": events.len(),
        "prompt_tokens_details": {"cached_tokens": 40}}}),
    );
    let mut lines: Vec<String> = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    lines.push("data: [DONE]\n\n".into());
    let body = futures_util::stream::unfold(lines.into_iter(), move |mut rest| async move {
        let line = rest.next()?;
        tokio::time::sleep(every).await;
        Some((Ok::<_, std::convert::Infallible>(line), rest))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(axum::body::Body::from_stream(body))
        .unwrap()
}

async fn openai_chat(State(fake): State<Arc<Fake>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    fake.note(headers, body.clone());
    respond(fake.next(), &body, |text| {
        json!({
            "id": "chatcmpl-fake", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 42, "completion_tokens": text.split_whitespace().count()}
        })
    })
    .await
}

async fn anthropic_messages(State(fake): State<Arc<Fake>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    fake.note(headers, body.clone());
    respond(fake.next(), &body, |text| {
        json!({
            "id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 40, "output_tokens": 7}
        })
    })
    .await
}
