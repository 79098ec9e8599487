//! A model that answers from a script, in order, and keeps every request it
//! was sent: deterministic agent tests without a network (in the manner of
//! rig's scripted completion model).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::{ChatModel, ChatRequest, LlmError, Reply, ToolCall, Usage};

#[derive(Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Result<Reply, LlmError>>>,
    seen: Mutex<Vec<ChatRequest>>,
}

impl ScriptedModel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Next reply: this text, counted as one token a word.
    pub fn then_text(self, text: &str) -> Self {
        let words = text.split_whitespace().count() as u64;
        self.then(Ok(Reply {
            content: text.to_string(),
            tool_calls: Vec::new(),
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: words,
                cached_tokens: 0,
            },
            latency: Duration::ZERO,
        }))
    }

    /// Next reply: one function call with these JSON arguments.
    pub fn then_call(self, name: &str, arguments: &str) -> Self {
        let n = self.script.lock().map(|s| s.len()).unwrap_or(0);
        self.then(Ok(Reply {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: format!("call_{n}"),
                name: name.to_string(),
                arguments: arguments.to_string(),
            }],
            usage: Usage::default(),
            latency: Duration::ZERO,
        }))
    }

    pub fn then(self, reply: Result<Reply, LlmError>) -> Self {
        if let Ok(mut s) = self.script.lock() {
            s.push_back(reply);
        }
        self
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// Characters per streamed piece.
const STREAM_CHARS: usize = 7;

#[async_trait]
impl ChatModel for ScriptedModel {
    fn describe(&self) -> String {
        "scripted".into()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Reply, LlmError> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(req.clone());
        }
        let next = self.script.lock().ok().and_then(|mut s| s.pop_front());
        let reply = next.unwrap_or(Err(LlmError::ScriptExhausted))?;
        // A streamed request gets the text a few characters at a time, as
        // a server's chunks would bring it.
        if let Some(deltas) = &req.stream {
            let chars: Vec<char> = reply.content.chars().collect();
            for piece in chars.chunks(STREAM_CHARS) {
                deltas.send(&piece.iter().collect::<String>());
            }
        }
        Ok(reply)
    }
}
