//! How much the player wants the persona to talk, their choice per persona
//! and remembered across matches: quiet (it only answers when spoken to),
//! chatty (a remark on every move), or as its character has it.

use serde::{Deserialize, Serialize};

use super::TriggerKind;

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TalkMode {
    #[default]
    Normal,
    Quiet,
    Chatty,
}

impl TalkMode {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<TalkMode> {
        s.parse().ok()
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
    fn quiet_speaks_only_to_answer_and_chatty_on_every_move() {
        assert!(!TalkMode::Quiet.may_speak(TriggerKind::OnUserMove));
        assert!(TalkMode::Quiet.may_speak(TriggerKind::OnUserInput));
        assert!(TalkMode::Normal.may_speak(TriggerKind::IdleWait));
        assert_eq!((TalkMode::Chatty.chattiness(4), TalkMode::Quiet.chattiness(4)), (1, 4));
        assert_eq!(TalkMode::parse("quiet"), Some(TalkMode::Quiet));
        assert_eq!(TalkMode::parse("loud"), None);
    }
}
