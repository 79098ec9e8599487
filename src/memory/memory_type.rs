//! The kinds of memory: seven about the player and the game, and the moments a player and a
//! persona shared. Apart from the memory model, so
//! that what reads a memory's words (`concepts`) and the model that calls it
//! both build on it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum MemoryType {
    PlayerBehavior,
    PlayerObservation,
    GameContext,
    PersonalNote,
    Streak,
    Pattern,
    Emotional,
    /// A moment the two of them shared (a swindle, a stalemate escape, a
    /// blunder laughed over, a joke), brought back once in a later game.
    SharedMoment,
}

impl MemoryType {
    /// Whether a memory of this kind is about the play: only such a memory
    /// is about the board it was made at (a life fact told at move 3 is not
    /// about move 3's position).
    pub fn about_the_game(self) -> bool {
        matches!(
            self,
            MemoryType::PlayerBehavior | MemoryType::GameContext | MemoryType::Pattern
        )
    }

    pub const ALL: [MemoryType; 8] = [
        MemoryType::PlayerBehavior,
        MemoryType::PlayerObservation,
        MemoryType::GameContext,
        MemoryType::PersonalNote,
        MemoryType::Streak,
        MemoryType::Pattern,
        MemoryType::Emotional,
        MemoryType::SharedMoment,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown memory type '{0}'")]
pub struct UnknownMemoryType(pub String);

impl FromStr for MemoryType {
    type Err = UnknownMemoryType;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MemoryType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownMemoryType(s.chars().take(40).collect()))
    }
}
