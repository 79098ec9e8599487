//! Language models behind one seam, `ChatModel`: a chat request in (messages,
//! optional tools for function calling, optional JSON schema for structured
//! output), a reply out (text, tool calls, token usage). The OpenAI wire
//! format is the common one (Ollama, vLLM, llama.cpp's server, OpenAI,
//! Gemini's compatible endpoint); `ScriptedModel` answers from a script so
//! agent logic can be tested turn by turn. Nothing here knows about chess.

mod anthropic;
mod failover;
pub mod json;
mod openai;
mod scripted;
mod sse;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use anthropic::AnthropicModel;
pub use failover::{CallLog, CallRecord, Endpoint, LlmPool, Session};
pub use openai::OpenAiModel;
pub use scripted::ScriptedModel;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// The calls an assistant message made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Message::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::new(Role::Assistant, content)
    }
    pub fn tool_result(call_id: &str, content: impl Into<String>) -> Self {
        Message {
            tool_call_id: Some(call_id.to_string()),
            ..Message::new(Role::Tool, content)
        }
    }
}

/// A function call the model asked for; `arguments` is its JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A function the model may call, described by a JSON schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub temperature: f32,
    pub max_tokens: u32,
    pub tools: Vec<Tool>,
    /// Structured output: the reply must match this schema (name, schema).
    pub json_schema: Option<(String, Value)>,
    /// Stream the reply's text here as it arrives (backends that cannot
    /// stream answer whole; the reply is the same either way).
    #[serde(skip)]
    pub stream: Option<TextSink>,
}

/// Where text goes as it comes: a streamed reply's pieces (each once, in
/// order), or a draft as it grows.
#[derive(Clone)]
pub struct TextSink(Arc<dyn Fn(&str) + Send + Sync>);

impl TextSink {
    pub fn new(sink: impl Fn(&str) + Send + Sync + 'static) -> TextSink {
        TextSink(Arc::new(sink))
    }

    pub fn send(&self, piece: &str) {
        if !piece.is_empty() {
            (self.0)(piece);
        }
    }
}

impl PartialEq for TextSink {
    fn eq(&self, other: &TextSink) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for TextSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextSink")
    }
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>, temperature: f32, max_tokens: u32) -> Self {
        ChatRequest {
            messages,
            temperature,
            max_tokens,
            tools: Vec::new(),
            json_schema: None,
            stream: None,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Of the prompt tokens, those the endpoint served from its cache.
    #[serde(default)]
    pub cached_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cached_tokens += other.cached_tokens;
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub latency: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("LLM endpoint unreachable: {0}")]
    Unreachable(String),
    #[error("LLM call timed out after {0:?}")]
    Timeout(Duration),
    #[error("LLM endpoint answered {status}: {body}")]
    Status { status: u16, body: String },
    #[error("LLM answer not understood: {0}")]
    BadReply(String),
    #[error("the scripted model has no more replies")]
    ScriptExhausted,
    #[error("LLM call cancelled: the match ended")]
    Cancelled,
}

impl LlmError {
    /// The endpoint is down or broken (not the model's answer): fail over.
    pub fn is_endpoint_failure(&self) -> bool {
        match self {
            LlmError::Unreachable(_) | LlmError::Timeout(_) => true,
            LlmError::Status { status, .. } => *status >= 500 || *status == 429 || *status == 401 || *status == 404,
            LlmError::BadReply(_) | LlmError::ScriptExhausted | LlmError::Cancelled => false,
        }
    }
}

/// Sends a request and returns the body of a 2xx answer; other statuses
/// become `LlmError::Status` with the start of their body.
pub(crate) async fn send_for_text(call: reqwest::RequestBuilder, timeout: Duration) -> Result<String, LlmError> {
    let response = send(call, timeout).await?;
    response.text().await.map_err(|e| transport_error(e, timeout))
}

/// Sends a request; a status other than 2xx is `LlmError::Status` with the
/// start of the body.
pub(crate) async fn send(call: reqwest::RequestBuilder, timeout: Duration) -> Result<reqwest::Response, LlmError> {
    let response = call.send().await.map_err(|e| transport_error(e, timeout))?;
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let text = response.text().await.unwrap_or_default();
    Err(LlmError::Status {
        status: status.as_u16(),
        body: text.chars().take(300).collect(),
    })
}

/// A reqwest failure as an `LlmError` (the URL is left out of the message).
pub(crate) fn transport_error(e: reqwest::Error, timeout: Duration) -> LlmError {
    if e.is_timeout() {
        LlmError::Timeout(timeout)
    } else {
        LlmError::Unreachable(e.without_url().to_string())
    }
}

#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Model and endpoint, for logs and the match state (never the key).
    fn describe(&self) -> String;
    async fn chat(&self, req: &ChatRequest) -> Result<Reply, LlmError>;
}
