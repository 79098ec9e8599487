//! A language model retells the factual reflection in the persona's voice.
//! It gets the facts and nothing else; a failed or empty answer leaves the
//! scripted summary in place.

use serde_json::json;

use super::Reflection;
use crate::config::RoleConfig;
use crate::llm::{ChatModel, ChatRequest, Message};
use crate::personas::Persona;

const SUMMARY_CHARS: usize = 700;

pub async fn retell(
    model: &dyn ChatModel,
    persona: &Persona,
    reflection: &Reflection,
    sampling: RoleConfig,
) -> Option<String> {
    let facts = json!({
        "result": reflection.result, "termination": reflection.termination, "your_outcome": reflection.outcome,
        "moves": reflection.moves, "opening": reflection.opening, "key_moments": reflection.key_moments,
        "learned_about_the_player": reflection.learned.iter().map(|l| &l.content).collect::<Vec<_>>(),
        "deep_checked": reflection.deep_checked,
        "your_mood": reflection.mood, "head_to_head": reflection.head_to_head,
    });
    let system = format!(
        "You are {}. {} The match just ended. In two or three sentences, in your own voice, reflect \
         on it for your diary. Use only the facts given; do not invent moves or events. Plain text, no JSON.",
        persona.name, persona.voice
    );
    let req = ChatRequest::new(
        vec![Message::system(system), Message::user(format!("Facts: {facts}"))],
        sampling.temperature,
        sampling.max_tokens,
    );
    match model.chat(&req).await {
        Ok(reply) => {
            let text: String = reply.content.trim().chars().take(SUMMARY_CHARS).collect();
            (!text.is_empty() && !text.starts_with('{')).then_some(text)
        }
        Err(e) => {
            tracing::warn!("reflection not retold ({e}); the factual one stands");
            None
        }
    }
}
