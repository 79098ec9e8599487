//! The memory schema of seed 002, plus the player and persona it belongs to.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::{MatchId, MemoryId, PlayerId};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryType {
    PlayerBehavior,
    PlayerObservation,
    GameContext,
    PersonalNote,
    Streak,
    Pattern,
    Emotional,
}

impl MemoryType {
    pub const ALL: [MemoryType; 7] = [
        MemoryType::PlayerBehavior,
        MemoryType::PlayerObservation,
        MemoryType::GameContext,
        MemoryType::PersonalNote,
        MemoryType::Streak,
        MemoryType::Pattern,
        MemoryType::Emotional,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::PlayerBehavior => "player_behavior",
            MemoryType::PlayerObservation => "player_observation",
            MemoryType::GameContext => "game_context",
            MemoryType::PersonalNote => "personal_note",
            MemoryType::Streak => "streak",
            MemoryType::Pattern => "pattern",
            MemoryType::Emotional => "emotional",
        }
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreatedBy {
    MainAgent,
    Subconscious,
    /// Read-only lore from the persona file.
    PersonaLore,
}

impl CreatedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            CreatedBy::MainAgent => "main_agent",
            CreatedBy::Subconscious => "subconscious",
            CreatedBy::PersonaLore => "persona_lore",
        }
    }

    pub fn parse(s: &str) -> Option<CreatedBy> {
        [CreatedBy::MainAgent, CreatedBy::Subconscious, CreatedBy::PersonaLore]
            .into_iter()
            .find(|c| c.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: MemoryId,
    /// None for persona lore, which every player may hear about.
    pub player_id: Option<PlayerId>,
    pub persona_id: String,
    pub memory_type: MemoryType,
    /// The text that is embedded and recalled.
    pub content: String,
    pub related_match_id: Option<MatchId>,
    pub created_by: CreatedBy,
    pub metadata: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

/// A memory found by a search, with its similarity to the query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recalled {
    pub memory: Memory,
    pub score: f32,
}
