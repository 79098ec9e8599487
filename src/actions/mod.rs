//! The main agent's output (JSON actions: send_message, save_memory,
//! set_emotion, stop) and the executor that
//! validates, persists and pushes each one.

pub mod claims;
mod executor;
pub mod memory_check;
mod solicit;

use serde::{Deserialize, Serialize};

use crate::memory::MemoryType;

pub use executor::{ExecContext, Executed, MAX_MESSAGE_CHARS, execute};

/// One action, as JSON: `{"action": "send_message", "content": ..., "tone": ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    SendMessage {
        content: String,
        tone: String,
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        metadata: serde_json::Value,
    },
    SaveMemory {
        content: String,
        memory_type: MemoryType,
        /// 0..=1; how much it matters (default 0.5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        importance: Option<f32>,
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        metadata: serde_json::Value,
    },
    /// `content` names one of the persona's declared emotions.
    SetEmotion {
        content: String,
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        metadata: serde_json::Value,
    },
    /// Nothing more this turn.
    Stop,
}

/// A brain's answer to one trigger: private thinking plus actions in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    pub actions: Vec<Action>,
}

impl Action {
    pub fn say(content: impl Into<String>, tone: impl Into<String>) -> Action {
        Action::SendMessage {
            content: content.into(),
            tone: tone.into(),
            metadata: serde_json::Value::Null,
        }
    }

    pub fn feel(emotion: impl Into<String>) -> Action {
        Action::SetEmotion {
            content: emotion.into(),
            metadata: serde_json::Value::Null,
        }
    }

    pub fn remember(memory_type: MemoryType, content: impl Into<String>) -> Action {
        Action::SaveMemory {
            content: content.into(),
            memory_type,
            importance: None,
            metadata: serde_json::Value::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_read_and_write_their_json_shape() {
        let json = serde_json::json!({
            "thinking": "they blundered",
            "actions": [
                {"action": "send_message", "content": "Oops!", "tone": "playful"},
                {"action": "save_memory", "content": "Hangs knights", "memory_type": "pattern"},
                {"action": "set_emotion", "content": "amused"},
                {"action": "stop"}
            ]
        });
        let d: Decision = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(d.actions.len(), 4);
        assert_eq!(d.actions[0], Action::say("Oops!", "playful"));
        assert_eq!(serde_json::to_value(&d).unwrap(), json);
        let bad = serde_json::json!({"actions": [{"action": "dance"}]});
        assert!(serde_json::from_value::<Decision>(bad).is_err());
    }
}
