//! Trigger points: what just happened in a match, and the game
//! context every agent sees when it fires.

mod context;
mod talk;

use serde::Serialize;

#[cfg(test)]
pub use context::test_context;
pub use context::{
    Adapted, ContextParts, EndFact, GameContext, LastGame, MatchHistory, MoveFact, SAID_KEPT, Standing, UsualOpening,
};
pub use talk::TalkMode;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TriggerKind {
    BeforeMatch,
    OnUserInput,
    OnUserMove,
    BeforeAgentMove,
    IdleWait,
    AfterMatch,
}

impl TriggerKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What the user did, for `on_user_input`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UserInput {
    Chat {
        text: String,
    },
    DrawOffer {
        accepted: bool,
    },
    /// The player asked for a hint: the engine's move for them (UCI and
    /// SAN, checked legal) and the player's win% after it, if scored.
    Hint {
        uci: String,
        san: String,
        win_pct: Option<f64>,
        count: u32,
    },
    /// The player asked why the persona played its last move.
    Explain,
    /// The player asked to take back `moves` ("12. Qh5 Nf6"); the persona's
    /// policy granted it or not, and why not.
    Takeback {
        granted: bool,
        moves: String,
        why: String,
    },
    /// At the greeting: one of the player's old mistakes, offered as a
    /// puzzle (what they played, and when: "earlier today", "on Tuesday").
    PuzzleOffer {
        played_san: String,
        when: String,
    },
    /// The player's answer to the offered puzzle, judged; `retired` once
    /// solved twice.
    PuzzleAnswer {
        correct: bool,
        answered_san: String,
        solution_san: String,
        when: String,
        retired: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trigger {
    pub kind: TriggerKind,
    pub input: Option<UserInput>,
    /// For `idle_wait`: which nudge this is, from 0.
    pub nudge: u32,
    /// The event of the player's words this trigger answers (a chat): a
    /// memory made now is made from them, and forgetting it forgets them.
    #[serde(skip)]
    pub words_seq: Option<i64>,
    /// What the listener heard in a chat line (set by the pipeline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heard: Option<crate::listen::Heard>,
}

impl Trigger {
    pub fn new(kind: TriggerKind) -> Trigger {
        Trigger {
            kind,
            input: None,
            nudge: 0,
            words_seq: None,
            heard: None,
        }
    }

    pub fn input(input: UserInput) -> Trigger {
        Trigger {
            kind: TriggerKind::OnUserInput,
            input: Some(input),
            nudge: 0,
            words_seq: None,
            heard: None,
        }
    }

    /// The player's chat, stored as event `seq`.
    pub fn chat(text: &str, seq: i64) -> Trigger {
        Trigger {
            words_seq: Some(seq),
            ..Trigger::input(UserInput::Chat { text: text.to_string() })
        }
    }

    pub fn idle(nudge: u32) -> Trigger {
        Trigger {
            kind: TriggerKind::IdleWait,
            input: None,
            nudge,
            words_seq: None,
            heard: None,
        }
    }
}
