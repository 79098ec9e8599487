//! OpenAI-compatible chat completions over HTTP (reqwest): the wire format
//! that Ollama, vLLM, llama.cpp's server, OpenAI and Gemini's compatible
//! endpoint all speak.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ChatModel, ChatRequest, LlmError, Message, Reply, Role, ToolCall, Usage, send_for_text};

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
        body
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
        let text = send_for_text(call, self.timeout).await?;
        let completion: Completion =
            serde_json::from_str(&text).map_err(|e| LlmError::BadReply(format!("{e}: {}", clip(&text))))?;
        let choice = completion
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| LlmError::BadReply("no choices".into()))?;
        let usage = completion.usage.map_or_else(Usage::default, |u| Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
        });
        Ok(Reply {
            content: choice.message.content.unwrap_or_default(),
            tool_calls: choice
                .message
                .tool_calls
                .into_iter()
                .enumerate()
                .map(tool_call)
                .collect(),
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
