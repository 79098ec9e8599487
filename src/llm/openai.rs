//! OpenAI-compatible chat completions over HTTP (reqwest): the wire format
//! that Ollama, vLLM, llama.cpp's server, OpenAI and Gemini's compatible
//! endpoint all speak.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::sse::DataLines;
use super::{
    ChatModel, ChatRequest, LlmError, Message, Reply, Role, TextSink, ToolCall, Usage, send, send_for_text,
    transport_error,
};

/// How long a server that runs on this machine keeps the model loaded
/// between calls (Ollama's `keep_alive`): longer than a player's think.
const LOCAL_KEEP_ALIVE: &str = "30m";

pub struct OpenAiModel {
    http: reqwest::Client,
    /// Up to and including `/v1`, e.g. `http://127.0.0.1:8081/v1`.
    base_url: String,
    model: String,
    api_key: Option<String>,
    timeout: Duration,
}

impl OpenAiModel {
    pub fn new(base_url: &str, model: &str, api_key: Option<String>, timeout: Duration) -> Self {
        OpenAiModel {
            http: reqwest::Client::new(),
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key,
            timeout,
        }
    }

    fn body(&self, req: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.model,
            "messages": req.messages.iter().map(wire_message).collect::<Vec<_>>(),
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
        });
        if !req.tools.is_empty() {
            let tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": t}))
                .collect();
            body["tools"] = Value::Array(tools);
        }
        if let Some((name, schema)) = &req.json_schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": true},
            });
        }
        if self.streams(req) {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        if self.is_local() {
            // llama.cpp's server and Ollama keep the evaluated prompt and
            // reuse its longest common prefix (the persona card, the rules,
            // earlier turns) when asked; hosted APIs reject unknown fields.
            body["cache_prompt"] = json!(true);
            body["keep_alive"] = json!(LOCAL_KEEP_ALIVE);
        }
        body
    }

    /// Text-only answers stream when asked (streamed tool calls come in
    /// fragments not worth assembling here).
    fn streams(&self, req: &ChatRequest) -> bool {
        req.stream.is_some() && req.tools.is_empty()
    }

    /// A server on this machine (llama.cpp's, Ollama).
    fn is_local(&self) -> bool {
        let url = reqwest::Url::parse(&self.base_url).ok();
        let host = url.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
        matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1")
    }

    /// A streamed answer: each piece of text to `deltas` as it arrives, the
    /// whole text and the usage (sent last) returned. A server that ignores
    /// `stream` and answers whole is read as whole.
    async fn read_stream(&self, response: reqwest::Response, deltas: &TextSink) -> Result<(String, Usage), LlmError> {
        let event_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut response = response;
        if !event_stream {
            let text = response.text().await.map_err(|e| transport_error(e, self.timeout))?;
            let (content, _, usage) = parse_whole(&text)?;
            deltas.send(&content);
            return Ok((content, usage));
        }
        let (mut lines, mut content, mut usage) = (DataLines::default(), String::new(), Usage::default());
        while let Some(bytes) = response.chunk().await.map_err(|e| transport_error(e, self.timeout))? {
            for data in lines.feed(&bytes) {
                if data == "[DONE]" {
                    return Ok((content, usage));
                }
                let chunk: StreamChunk =
                    serde_json::from_str(&data).map_err(|e| LlmError::BadReply(format!("{e}: {}", clip(&data))))?;
                if let Some(u) = chunk.usage {
                    usage = u.into();
                }
                for piece in chunk.choices.into_iter().filter_map(|c| c.delta.content) {
                    deltas.send(&piece);
                    content.push_str(&piece);
                }
            }
        }
        // A stream that ends without [DONE] still gave its text.
        Ok((content, usage))
    }
}

fn wire_message(m: &Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut v = json!({"role": role, "content": m.content});
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        v["tool_calls"] = Value::Array(calls);
    }
    if let Some(id) = &m.tool_call_id {
        v["tool_call_id"] = json!(id);
    }
    v
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: WireReply,
}

#[derive(Deserialize)]
struct WireReply {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireCall>,
}

#[derive(Deserialize)]
struct WireCall {
    #[serde(default)]
    id: String,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Usage {
        Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            cached_tokens: u.prompt_tokens_details.map_or(0, |d| d.cached_tokens),
        }
    }
}

/// One event of a streamed completion.
#[derive(Deserialize)]
struct StreamChunk {
    #[serde(default)]
    choices: Vec<StreamChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct StreamChoice {
    #[serde(default)]
    delta: StreamDelta,
}

#[derive(Deserialize, Default)]
struct StreamDelta {
    #[serde(default)]
    content: Option<String>,
}

/// A whole (unstreamed) completion: its text, tool calls and usage.
fn parse_whole(text: &str) -> Result<(String, Vec<ToolCall>, Usage), LlmError> {
    let completion: Completion =
        serde_json::from_str(text).map_err(|e| LlmError::BadReply(format!("{e}: {}", clip(text))))?;
    let usage = completion.usage.map_or_else(Usage::default, Usage::from);
    let choice = completion
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| LlmError::BadReply("no choices".into()))?;
    let calls = choice
        .message
        .tool_calls
        .into_iter()
        .enumerate()
        .map(tool_call)
        .collect();
    Ok((choice.message.content.unwrap_or_default(), calls, usage))
}

#[async_trait]
impl ChatModel for OpenAiModel {
    fn describe(&self) -> String {
        format!("{} at {}", self.model, self.base_url)
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Reply, LlmError> {
        let started = Instant::now();
        let mut call = self
            .http
            .post(format!("{}/chat/completions", self.base_url))
            .timeout(self.timeout)
            .json(&self.body(req));
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key);
        }
        if let Some(deltas) = req.stream.as_ref().filter(|_| self.streams(req)) {
            let response = send(call, self.timeout).await?;
            let (content, usage) = self.read_stream(response, deltas).await?;
            return Ok(Reply {
                content,
                tool_calls: Vec::new(),
                usage,
                latency: started.elapsed(),
            });
        }
        let text = send_for_text(call, self.timeout).await?;
        let (content, tool_calls, usage) = parse_whole(&text)?;
        Ok(Reply {
            content,
            tool_calls,
            usage,
            latency: started.elapsed(),
        })
    }
}

/// Arguments arrive as a JSON string (OpenAI) or an object (some servers).
fn tool_call((i, c): (usize, WireCall)) -> ToolCall {
    let arguments = match c.function.arguments {
        Value::String(s) => s,
        other => other.to_string(),
    };
    let id = if c.id.is_empty() { format!("call_{i}") } else { c.id };
    ToolCall {
        id,
        name: c.function.name,
        arguments,
    }
}

fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}
