//! What a chat line is for: a closed vocabulary of intents, learned from
//! the labelled corpus in `corpus/listen/` (`learned/`).

use serde::Serialize;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    PartialOrd,
    Ord,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Intent {
    Greeting,
    Farewell,
    /// Whether the persona remembers them, or about earlier games.
    AsksMemory,
    /// About the persona: its life, its lore, its style.
    AsksPersona,
    /// About the position or a move: who is better, why a move, a blunder?
    AsksPosition,
    /// Something about themselves: job, family, where or from whom they
    /// learned, how they feel, the time of day.
    SelfDisclosure,
    /// A chess preference: a favourite opening, a style, a time control.
    Preference,
    Compliment,
    TrashTalk,
    /// An apology, or tiredness.
    Apology,
    DrawRequest,
    TakebackRequest,
    Thanks,
    OffTopic,
}

impl Intent {
    pub const ALL: [Intent; 14] = [
        Intent::Greeting,
        Intent::Farewell,
        Intent::AsksMemory,
        Intent::AsksPersona,
        Intent::AsksPosition,
        Intent::SelfDisclosure,
        Intent::Preference,
        Intent::Compliment,
        Intent::TrashTalk,
        Intent::Apology,
        Intent::DrawRequest,
        Intent::TakebackRequest,
        Intent::Thanks,
        Intent::OffTopic,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<Intent> {
        s.parse().ok()
    }

    /// A question or a request: it wants an answer.
    pub fn asks(self) -> bool {
        matches!(
            self,
            Intent::DrawRequest
                | Intent::TakebackRequest
                | Intent::AsksMemory
                | Intent::AsksPosition
                | Intent::AsksPersona
        )
    }

    /// Which of two intents in one line it is about: what asks for an
    /// answer first, then what tells something, then the pleasantries
    /// around them ("Hi! I learned chess from my dad." tells a fact).
    pub fn rank(self) -> u8 {
        match self {
            Intent::DrawRequest | Intent::TakebackRequest => 0,
            Intent::AsksMemory => 1,
            Intent::AsksPosition => 2,
            Intent::AsksPersona => 3,
            Intent::Preference => 4,
            Intent::SelfDisclosure => 5,
            Intent::TrashTalk => 6,
            Intent::Compliment => 7,
            Intent::Apology => 8,
            Intent::Farewell => 9,
            Intent::Thanks => 10,
            Intent::Greeting => 11,
            Intent::OffTopic => 12,
        }
    }
}

impl std::fmt::Display for Intent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
