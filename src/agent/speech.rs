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
        let window = window(input);
        let held = holds(input.trigger.kind) && spoke.get(&id).is_some_and(|t| recent(t, window, now));
        let times = super::bounded_entry(&mut spoke, id);
        if held {
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

    /// Whether a message now would be held back (the persona spoke within
    /// its chattiness window on a quiet trigger).
    pub fn would_hold(&self, input: &BrainInput<'_>) -> bool {
        let Ok(spoke) = self.spoke_at.lock() else { return false };
        let times = spoke.get(&input.ctx.match_id);
        holds(input.trigger.kind) && times.is_some_and(|t| recent(t, window(input), input.ctx.move_count))
    }
}

/// Quiet triggers are rationed; a chat line, the greeting and the match's
/// end may always be answered.
pub fn holds(kind: TriggerKind) -> bool {
    !matches!(
        kind,
        TriggerKind::OnUserInput | TriggerKind::BeforeMatch | TriggerKind::AfterMatch
    )
}

/// Plies in which one message is allowed (one user move is two plies).
fn window(input: &BrainInput<'_>) -> usize {
    2 * input.ctx.talk.chattiness(input.persona.chattiness) as usize
}

fn recent(times: &[usize], window: usize, now: usize) -> bool {
    times.iter().any(|&t| t + window > now)
}
