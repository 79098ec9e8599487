//! What each kind of match event carries: one variant per kind, each with a
//! typed payload. On the wire and in SQL an event is `{"type": kind,
//! "data": payload}`; the same types write it and read it back, so a writer
//! and a reader cannot disagree on a field.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::chess::odds::MoveOdds;
use crate::familiarity::Stage;
use crate::ids::MemoryId;
use crate::memory::{MemoryType, SaveOutcome};
use crate::triggers::{TalkMode, TriggerKind};

/// Declares the kinds once: the enum, each kind's name (serde's tag, which
/// a test holds to `kind()`), and each payload as its event
/// (`emitter.emit(Hint { .. }, write)`).
macro_rules! event_kinds {
    ($($variant:ident($payload:ident) = $kind:literal),* $(,)?) => {
        /// What an event is: its kind (`type`) and that kind's payload (`data`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        #[serde(tag = "type", content = "data", rename_all = "snake_case")]
        pub enum EventBody {
            $($variant($payload),)*
        }

        impl EventBody {
            /// The kind as stored in SQL's `kind` column and sent as `type`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(EventBody::$variant(_) => $kind,)*
                }
            }
        }

        $(impl From<$payload> for EventBody {
            fn from(payload: $payload) -> Self {
                EventBody::$variant(payload)
            }
        })*
    };
}

event_kinds!(
    Message(Message) = "message",
    Move(Move) = "move",
    Odds(Odds) = "odds",
    Emotion(Emotion) = "emotion",
    MemorySaved(MemorySaved) = "memory_saved",
    Trigger(TriggerFired) = "trigger",
    GameOver(GameOver) = "game_over",
    Reflection(Reflection) = "reflection",
    DrawOffer(DrawOffer) = "draw_offer",
    Rating(Rating) = "rating",
    Talk(Talk) = "talk",
    Hint(Hint) = "hint",
    Takeback(Takeback) = "takeback",
    Puzzle(PuzzleOffer) = "puzzle",
    PuzzleAnswer(PuzzleAnswer) = "puzzle_answer",
    Familiarity(FamiliarityReached) = "familiarity",
    Draft(Draft) = "draft",
);

impl EventBody {
    /// The payload alone, as SQL's `payload` column keeps it.
    pub fn payload(&self) -> serde_json::Value {
        let mut tagged = serde_json::to_value(self).expect("an event body is plain data");
        tagged["data"].take()
    }

    /// Reads a stored row's kind and payload back.
    pub fn from_stored(kind: &str, payload: serde_json::Value) -> Result<EventBody, serde_json::Error> {
        serde_json::from_value(serde_json::json!({ "type": kind, "data": payload }))
    }

    /// The persona's own words, if this is its message.
    pub fn persona_said(&self) -> Option<&str> {
        match self {
            EventBody::Message(m) if m.sender == Side::Persona => Some(&m.content),
            _ => None,
        }
    }
}

/// Who of the two did something.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Side {
    User,
    Persona,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// From its stored name.
    pub fn parse(s: &str) -> Option<Side> {
        s.parse().ok()
    }
}

/// A chat line; the persona's carry the tone it was said in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Message {
    pub sender: Side,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tone: Option<String>,
}

/// A move played, with the position after it and its odds (none when the
/// engine could not score it in time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Move {
    /// 1 for White's first move.
    pub ply: usize,
    pub uci: String,
    pub san: String,
    pub side: Side,
    pub fen: String,
    #[serde(default)]
    pub odds: Option<MoveOdds>,
}

/// A deeper search revised the odds of the move at `ply`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Odds {
    pub ply: usize,
    pub odds: MoveOdds,
    pub depth: OddsDepth,
}

/// How far the search that gave the odds went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OddsDepth {
    Deep,
}

/// The persona's mood changed, at the trigger that changed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Emotion {
    pub emotion: String,
    pub trigger: TriggerKind,
}

/// A memory the persona kept in this match (or one it strengthened).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MemorySaved {
    pub id: MemoryId,
    pub memory_type: MemoryType,
    pub content: String,
    pub outcome: SaveOutcome,
    /// Older memories this one contradicted, now superseded by it.
    #[serde(default)]
    pub superseded: Vec<MemoryId>,
}

/// A trigger fired: the persona is about to think.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TriggerFired {
    pub trigger: TriggerKind,
}

/// The game ended: `result` as in PGN ("1-0", "1/2-1/2", "*").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameOver {
    pub result: String,
    pub termination: String,
    /// None for a draw or an abandoned game.
    pub winner: Option<Side>,
}

/// The persona wrote its reflection on the match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Reflection {
    pub summary: String,
    pub key_moments: usize,
}

/// A draw offer: the player's, answered at once (`accepted`), or one the
/// persona made or withdrew (`by` is null once none is pending).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DrawOffer {
    pub by: Option<Side>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<bool>,
}

/// What the game did to the player's rating, or why it was not rated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Rating {
    pub rated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated_games: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The player set how much the persona talks; `text` says it to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Talk {
    pub mode: TalkMode,
    pub text: String,
}

/// A hint given: the engine's move for the player, and their win% after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Hint {
    pub san: String,
    pub uci: String,
    pub win_pct: Option<f64>,
    /// The how-manieth hint of this game.
    pub count: u32,
}

/// One of the player's old mistakes offered as a puzzle: the position
/// before it (the player to move), what they played, and where it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PuzzleOffer {
    pub id: crate::ids::PuzzleId,
    pub fen: String,
    pub played_san: String,
    pub from_match: crate::ids::MatchId,
    pub ply: i64,
    /// When that game was played.
    pub played_at: chrono::DateTime<chrono::Utc>,
    /// The legal moves there (UCI), for the page's puzzle board.
    #[serde(default)]
    pub legal_moves: Vec<String>,
}

/// An answer to the offered puzzle, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PuzzleAnswer {
    pub id: crate::ids::PuzzleId,
    pub correct: bool,
    pub answered_san: String,
    pub solution_san: String,
    /// `open` (it comes back) or `retired` (solved twice).
    pub status: crate::puzzles::PuzzleStatus,
}

/// A takeback asked for: granted (the moves are gone) or refused, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Takeback {
    pub granted: bool,
    /// The moves taken back (or that would have been), numbered as in PGN.
    pub moves: String,
    pub why: Option<String>,
    /// Takebacks granted in this game so far.
    pub count: usize,
}

/// The player reached a new stage of familiarity with this persona.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FamiliarityReached {
    pub stage: Stage,
    pub previous: Stage,
    pub games: u32,
    pub points: f64,
    pub text: String,
}

/// The persona's message as a model writes it, never stored: `text` grows
/// as it streams; a last draft with no text says it is done, and whether a
/// message took its place (`spoke`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Draft {
    pub trigger: TriggerKind,
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spoke: Option<bool>,
}
