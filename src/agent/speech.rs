//! Speech-rate control for LLM agents: on quiet triggers (a move, the
//! persona's own move, idleness) at most one message per `chattiness` moves
//! of the user; when the user speaks, or the match begins or ends, it may
//! always answer.

use std::collections::HashMap;
use std::sync::Mutex;

use super::BrainInput;
use crate::actions::{Action, Decision};
use crate::ids::MatchId;
use crate::triggers::TriggerKind;

#[derive(Default)]
pub struct SpeechLog {
    /// Per match: the move counts at which the persona last spoke.
    spoke_at: Mutex<HashMap<MatchId, Vec<usize>>>,
}

impl SpeechLog {
    /// Drops the decision's messages if the persona has spoken too much
    /// lately, and notes the ones it keeps.
    pub fn limit(&self, input: &BrainInput<'_>, decision: &mut Decision) {
        let Ok(mut spoke) = self.spoke_at.lock() else { return };
        let id = input.ctx.match_id;
        if input.trigger.kind == TriggerKind::AfterMatch {
            spoke.remove(&id);
            return;
        }
        let now = input.ctx.move_count;
        let times = super::llm::bounded_entry(&mut spoke, id);
        let exempt = matches!(input.trigger.kind, TriggerKind::OnUserInput | TriggerKind::BeforeMatch);
        // One user move is two plies.
        let window = 2 * input.persona.chattiness as usize;
        let recent = times.iter().filter(|&&t| t + window > now).count();
        if !exempt && recent >= 1 {
            let before = decision.actions.len();
            decision.actions.retain(|a| !matches!(a, Action::SendMessage { .. }));
            if decision.actions.len() < before {
                tracing::debug!(match_id = %id, "speech rate: a message held back");
            }
        }
        if decision.actions.iter().any(|a| matches!(a, Action::SendMessage { .. })) {
            times.push(now);
            times.retain(|&t| t + window > now);
        }
    }
}
