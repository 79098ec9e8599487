//! How much the player wants the persona to talk, their choice per persona
//! and remembered across matches: quiet (it only answers when spoken to),
//! chatty (a remark on every move), or as its character has it.

use serde::{Deserialize, Serialize};

use super::TriggerKind;
use crate::actions::{Action, Decision};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TalkMode {
    #[default]
    Normal,
    Quiet,
    Chatty,
}

impl TalkMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TalkMode::Normal => "normal",
            TalkMode::Quiet => "quiet",
            TalkMode::Chatty => "chatty",
        }
    }

    pub fn parse(s: &str) -> Option<TalkMode> {
        [TalkMode::Normal, TalkMode::Quiet, TalkMode::Chatty]
            .into_iter()
            .find(|m| m.as_str() == s)
    }

    /// Whether the persona may speak on this trigger: when quiet, only to
    /// answer the player.
    pub fn may_speak(self, kind: TriggerKind) -> bool {
        self != TalkMode::Quiet || kind == TriggerKind::OnUserInput
    }

    /// Quiet moves between two remarks: every move when chatty.
    pub fn chattiness(self, persona: u32) -> u32 {
        match self {
            TalkMode::Chatty => 1,
            _ => persona,
        }
    }

    /// The decision without its messages where this mode keeps the persona
    /// quiet (its mood and memories stay).
    pub fn hold_back(self, kind: TriggerKind, mut decision: Decision) -> Decision {
        if !self.may_speak(kind) {
            decision.actions.retain(|a| !matches!(a, Action::SendMessage { .. }));
        }
        decision
    }

    /// What the player asked, for the model.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            TalkMode::Normal => None,
            TalkMode::Quiet => Some("the player asked for quiet: speak only to answer them, briefly"),
            TalkMode::Chatty => Some("the player likes to chat: a remark on every move is welcome"),
        }
    }

    /// The club's notice when the player sets it.
    pub fn notice(self, persona: &str) -> String {
        match self {
            TalkMode::Quiet => {
                format!("{persona} will only speak when spoken to, in this game and the next, until you lift it.")
            }
            TalkMode::Chatty => format!("{persona} will chat on every move."),
            TalkMode::Normal => format!("{persona} talks as usual again."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_holds_back_all_but_answers() {
        let decision = Decision {
            thinking: None,
            actions: vec![Action::say("Hi!", "playful"), Action::feel("excited"), Action::Stop],
        };
        for kind in [
            TriggerKind::BeforeMatch,
            TriggerKind::OnUserMove,
            TriggerKind::BeforeAgentMove,
            TriggerKind::IdleWait,
            TriggerKind::AfterMatch,
        ] {
            let held = TalkMode::Quiet.hold_back(kind, decision.clone());
            assert_eq!(held.actions, [Action::feel("excited"), Action::Stop], "{kind:?}");
            assert_eq!(TalkMode::Normal.hold_back(kind, decision.clone()), decision);
        }
        let answered = TalkMode::Quiet.hold_back(TriggerKind::OnUserInput, decision.clone());
        assert_eq!(answered, decision);
        assert_eq!((TalkMode::Chatty.chattiness(4), TalkMode::Quiet.chattiness(4)), (1, 4));
        assert_eq!(TalkMode::parse("quiet"), Some(TalkMode::Quiet));
        assert_eq!(TalkMode::parse("loud"), None);
    }
}
