//! Executes a decision: each action is checked against the persona (tones,
//! emotions, length limits), persisted, then pushed. A bad action is skipped
//! and recorded as such; it never stops the game.

use serde::Serialize;

use super::claims::{self, Checked};
use super::memory_check;
use super::{Action, Decision};
use crate::events::{self, Emitter, MatchEvent, MemorySaved, Side};
use crate::ids::PlayerId;
use crate::memory::{CreatedBy, MemoryService, NewMemory, PositionTag};
use crate::personas::Persona;
use crate::store::{DomainWrite, StoreError};
use crate::triggers::{GameContext, TriggerKind};

pub const MAX_MESSAGE_CHARS: usize = 2000;

pub struct ExecContext<'a> {
    pub persona: &'a Persona,
    /// The board as the brain saw it: what the persona says is checked against it.
    pub game: &'a GameContext,
    pub player_id: PlayerId,
    pub memory: &'a MemoryService,
    pub trigger: TriggerKind,
    /// Where a saved memory came from (trigger, player name, difficulty, ply);
    /// merged into its metadata so the review API can show provenance.
    pub provenance: serde_json::Value,
    /// The board, so a memory made now can be recalled when it recurs.
    pub position: Option<PositionTag>,
}

/// What became of one action, for the trigger log.
#[derive(Debug, Clone, Serialize)]
pub struct Executed {
    pub action: Action,
    /// None if it was carried out; otherwise why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// What was changed before it was carried out (e.g. a false claim cut).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected: Option<String>,
}

/// What became of one action, as `run` reports it.
#[derive(Default)]
struct Outcome {
    skipped: Option<String>,
    corrected: Option<String>,
}

impl Outcome {
    fn skipped(why: String) -> Outcome {
        Outcome {
            skipped: Some(why),
            corrected: None,
        }
    }
}

pub async fn execute(
    decision: Decision,
    cx: &ExecContext<'_>,
    emitter: &mut Emitter,
    events: &mut Vec<MatchEvent>,
) -> Result<Vec<Executed>, StoreError> {
    let mut done = Vec::new();
    for action in decision.actions {
        let stop = action == Action::Stop;
        let Outcome { skipped, corrected } = run(&action, cx, emitter, events).await?;
        if let Some(why) = &skipped {
            tracing::warn!(trigger = cx.trigger.as_str(), "action skipped: {why}");
        }
        if let Some(what) = &corrected {
            tracing::info!(trigger = cx.trigger.as_str(), "action corrected: {what}");
        }
        done.push(Executed {
            action,
            skipped,
            corrected,
        });
        if stop {
            break;
        }
    }
    Ok(done)
}

async fn run(
    action: &Action,
    cx: &ExecContext<'_>,
    emitter: &mut Emitter,
    events: &mut Vec<MatchEvent>,
) -> Result<Outcome, StoreError> {
    let mut outcome = Outcome::default();
    match action {
        Action::SendMessage { content, tone, .. } => {
            let content = content.trim();
            if content.is_empty() || content.chars().count() > MAX_MESSAGE_CHARS {
                return Ok(Outcome::skipped(format!(
                    "message must be 1..={MAX_MESSAGE_CHARS} characters"
                )));
            }
            // Never a request for a password, a code or contact details.
            let asked = super::solicit::without_solicitations(content);
            if let Some((_, cut)) = &asked {
                outcome.corrected = Some(format!("requests for private details cut: {}", cut.join("; ")));
            }
            let content = match &asked {
                Some((kept, cut)) if kept.is_empty() => {
                    return Ok(Outcome::skipped(format!(
                        "asked for private details: {}",
                        cut.join("; ")
                    )));
                }
                Some((kept, _)) => kept.as_str(),
                None => content,
            };
            // Words about the board must be true on the board.
            let checked = claims::check(content, cx.game);
            let content = match &checked {
                Checked::True => content,
                Checked::Trimmed { text, cut } => {
                    let before = outcome.corrected.take().map(|c| format!("{c}; ")).unwrap_or_default();
                    outcome.corrected = Some(format!("{before}false claims cut: {}", cut.join("; ")));
                    text.as_str()
                }
                Checked::False { cut } => {
                    return Ok(Outcome::skipped(format!("false claims: {}", cut.join("; "))));
                }
            };
            // An unknown tone is replaced, not fatal: the message still matters.
            let tone = if cx.persona.tones.contains(tone) {
                tone.as_str()
            } else {
                cx.persona.tones[0].as_str()
            };
            let data = events::Message {
                sender: Side::Persona,
                content: content.to_string(),
                tone: Some(tone.to_string()),
            };
            let write = DomainWrite::Message {
                sender: "persona".into(),
                content: content.to_string(),
                tone: Some(tone.into()),
            };
            events.push(emitter.emit(data, write).await?);
        }
        Action::SetEmotion { content, .. } => {
            if !cx.persona.emotions.contains(content) {
                return Ok(Outcome::skipped(format!(
                    "'{content}' is not one of {}'s emotions",
                    cx.persona.name
                )));
            }
            let data = events::Emotion {
                emotion: content.clone(),
                trigger: cx.trigger,
            };
            let write = DomainWrite::Emotion {
                emotion: content.clone(),
                reason: Some(cx.trigger.as_str().into()),
            };
            events.push(emitter.emit(data, write).await?);
        }
        Action::SaveMemory {
            content,
            memory_type,
            importance,
            metadata,
        } => {
            // What it states of this match must be true of it (and of the player).
            if let Some(refused) = memory_check::refusal(content, *memory_type, cx.game, &cx.persona.name) {
                crate::telemetry::memory_refused(refused.check.as_str());
                return Ok(Outcome::skipped(format!("memory refused: {refused}")));
            }
            let new = NewMemory {
                player_id: cx.player_id,
                persona_id: cx.persona.id.clone(),
                memory_type: *memory_type,
                content: content.clone(),
                related_match_id: Some(emitter.match_id()),
                created_by: CreatedBy::MainAgent,
                metadata: with_provenance(metadata, &cx.provenance),
                importance: importance.unwrap_or(0.5),
                position: cx.position.clone(),
            };
            match cx.memory.save(new).await {
                Ok(saved) => {
                    let data = MemorySaved {
                        id: saved.memory.id,
                        memory_type: *memory_type,
                        content: content.trim().to_string(),
                        outcome: saved.outcome(),
                        superseded: saved.superseded,
                    };
                    events.push(emitter.emit(data, DomainWrite::Nothing).await?);
                }
                Err(e) => {
                    crate::telemetry::memory_refused("not_saved");
                    return Ok(Outcome::skipped(format!("memory not saved: {e}")));
                }
            }
        }
        Action::Stop => {}
    }
    Ok(outcome)
}

/// The brain's metadata, plus where the memory came from.
fn with_provenance(metadata: &serde_json::Value, provenance: &serde_json::Value) -> serde_json::Value {
    let mut out = match metadata {
        serde_json::Value::Object(map) => map.clone(),
        serde_json::Value::Null => serde_json::Map::new(),
        other => serde_json::Map::from_iter([("value".to_string(), other.clone())]),
    };
    if let serde_json::Value::Object(facts) = provenance {
        out.extend(facts.clone());
    }
    serde_json::Value::Object(out)
}
