//! Anthropic Messages over HTTP: the system prompt apart, text and tool_use
//! content blocks, `x-api-key` and `anthropic-version` headers.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ChatModel, ChatRequest, LlmError, Message, Reply, Role, ToolCall, Usage, send_for_text};

const API_VERSION: &str = "2023-06-01";

pub struct AnthropicModel {
    http: reqwest::Client,
    /// e.g. `https://api.anthropic.com` (the `/v1/messages` path is added).
    base_url: String,
    model: String,
    api_key: Option<String>,
    timeout: Duration,
}

impl AnthropicModel {
    pub fn new(base_url: &str, model: &str, api_key: Option<String>, timeout: Duration) -> Self {
        AnthropicModel {
            http: reqwest::Client::new(),
            base_url: base_url.trim_end_matches('/').trim_end_matches("/v1").to_string(),
            model: model.to_string(),
            api_key,
            timeout,
        }
    }

    fn body(&self, req: &ChatRequest) -> Value {
        let system: Vec<&str> = req
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let messages: Vec<Value> = req
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .map(wire)
            .collect();
        let mut body = json!({
            "model": self.model,
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "messages": messages,
        });
        if !system.is_empty() {
            body["system"] = json!(system.join("\n\n"));
        }
        if !req.tools.is_empty() {
            let tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                .collect();
            body["tools"] = Value::Array(tools);
        }
        body
    }
}

/// Tool calls become tool_use blocks; tool results go back as a user turn.
fn wire(m: &Message) -> Value {
    match m.role {
        Role::Tool => json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content}]}),
        Role::Assistant if !m.tool_calls.is_empty() => {
            let mut blocks: Vec<Value> = Vec::new();
            if !m.content.is_empty() {
                blocks.push(json!({"type": "text", "text": m.content}));
            }
            for c in &m.tool_calls {
                let input: Value = serde_json::from_str(&c.arguments).unwrap_or(json!({}));
                blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
            }
            json!({"role": "assistant", "content": blocks})
        }
        Role::Assistant => json!({"role": "assistant", "content": m.content}),
        _ => json!({"role": "user", "content": m.content}),
    }
}

#[derive(Deserialize)]
struct WireReply {
    #[serde(default)]
    content: Vec<Block>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
}

#[async_trait]
impl ChatModel for AnthropicModel {
    fn describe(&self) -> String {
        format!("{} at {}", self.model, self.base_url)
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Reply, LlmError> {
        let started = Instant::now();
        let mut call = self
            .http
            .post(format!("{}/v1/messages", self.base_url))
            .timeout(self.timeout)
            .header("anthropic-version", API_VERSION)
            .json(&self.body(req));
        if let Some(key) = &self.api_key {
            call = call.header("x-api-key", key);
        }
        let text = send_for_text(call, self.timeout).await?;
        let reply: WireReply = serde_json::from_str(&text)
            .map_err(|e| LlmError::BadReply(format!("{e}: {}", text.chars().take(200).collect::<String>())))?;
        let mut content = String::new();
        let mut tool_calls = Vec::new();
        for block in reply.content {
            match block {
                Block::Text { text } => content.push_str(&text),
                Block::ToolUse { id, name, input } => tool_calls.push(ToolCall {
                    id,
                    name,
                    arguments: input.to_string(),
                }),
                Block::Other => {}
            }
        }
        let usage = reply.usage.map_or_else(Usage::default, |u| Usage {
            prompt_tokens: u.input_tokens,
            completion_tokens: u.output_tokens,
            cached_tokens: u.cache_read_input_tokens,
        });
        Ok(Reply {
            content,
            tool_calls,
            usage,
            latency: started.elapsed(),
        })
    }
}
