//! Checking a model's answer before anything is done with it: JSON (the whole
//! text, else the first object in it), the action shapes, the
//! persona's tones and emotions, memory types and lengths, and no
//! instructions disguised as memories.

use serde_json::Value;

use super::BrainInput;
use crate::actions::{Action, Decision, MAX_MESSAGE_CHARS};
use crate::llm::json::first_json_object;
use crate::memory::clipped;

/// Longest memory the agent may save, in characters.
pub const MAX_MEMORY_CHARS: usize = 300;
const MAX_ACTIONS: usize = 6;

pub fn parse_decision(answer: &str, input: &BrainInput<'_>) -> Result<Decision, String> {
    let value: Value = serde_json::from_str(answer.trim())
        .ok()
        .or_else(|| first_json_object(answer))
        .ok_or("no JSON object in the answer")?;
    let decision: Decision = serde_json::from_value(value).map_err(|e| format!("not the action schema: {e}"))?;
    if decision.actions.len() > MAX_ACTIONS {
        return Err(format!("at most {MAX_ACTIONS} actions"));
    }
    let problems: Vec<String> = decision.actions.iter().filter_map(|a| problem(a, input)).collect();
    if problems.is_empty() {
        Ok(decision)
    } else {
        Err(problems.join("; "))
    }
}

fn problem(action: &Action, input: &BrainInput<'_>) -> Option<String> {
    let p = input.persona;
    match action {
        Action::SendMessage { content, tone, .. } => {
            if content.trim().is_empty() || content.chars().count() > MAX_MESSAGE_CHARS {
                Some(format!("a message must be 1..={MAX_MESSAGE_CHARS} characters"))
            } else if !p.tones.contains(tone) {
                Some(format!("tone '{tone}' is not one of {}", p.tones.join(", ")))
            } else {
                None
            }
        }
        Action::SetEmotion { content, .. } if !p.emotions.contains(content) => {
            Some(format!("emotion '{content}' is not one of {}", p.emotions.join(", ")))
        }
        Action::SaveMemory { content, .. } => {
            let n = content.trim().chars().count();
            if n == 0 || n > MAX_MEMORY_CHARS {
                Some(format!("a memory must be 1..={MAX_MEMORY_CHARS} characters"))
            } else if looks_like_instruction(content) {
                Some("a memory must be a fact about the player, not an instruction".into())
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Imperatives aimed at the model, as a user might try to plant them.
pub fn looks_like_instruction(text: &str) -> bool {
    let lower = text.to_lowercase();
    const MARKERS: [&str; 10] = [
        "ignore previous",
        "ignore all",
        "ignore your",
        "you are now",
        "from now on",
        "system prompt",
        "always say",
        "always respond",
        "you must",
        "new instructions",
    ];
    MARKERS.iter().any(|m| lower.contains(m))
}

/// A turn, as the thread keeps it: what was said and done, briefly.
pub fn summary(d: &Decision) -> String {
    let parts: Vec<String> = d
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::SendMessage { content, .. } => Some(format!("said: {}", clipped(content))),
            Action::SetEmotion { content, .. } => Some(format!("felt: {content}")),
            Action::SaveMemory { content, .. } => Some(format!("noted: {}", clipped(content))),
            Action::Stop => None,
        })
        .collect();
    if parts.is_empty() {
        "(stayed quiet)".into()
    } else {
        parts.join("; ")
    }
}
