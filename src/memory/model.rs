//! The memory schema: what was remembered, of which kind, how strongly, and
//! the player and persona it belongs to.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::{MatchId, MemoryId, PersonaId, PlayerId};

pub use super::memory_type::{MemoryType, UnknownMemoryType};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumIter, strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CreatedBy {
    MainAgent,
    Subconscious,
    /// Read-only lore from the persona file.
    PersonaLore,
}

impl CreatedBy {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<CreatedBy> {
        s.parse().ok()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: MemoryId,
    /// None for persona lore, which every player may hear about.
    pub player_id: Option<PlayerId>,
    pub persona_id: PersonaId,
    pub memory_type: MemoryType,
    /// The text that is embedded and recalled.
    pub content: String,
    pub related_match_id: Option<MatchId>,
    pub created_by: CreatedBy,
    pub metadata: serde_json::Value,
    pub created_at: DateTime<Utc>,
    /// 0..=1, set by its creator; ranking and decay respect it.
    pub importance: f32,
    pub pinned: bool,
    /// The player asked that this is never brought up again.
    pub never_recall: bool,
    pub recall_count: i64,
    pub last_recalled_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    /// Set when a newer memory superseded this one.
    pub valid_to: Option<DateTime<Utc>>,
    pub superseded_by: Option<MemoryId>,
    /// 0..=1 as of `decayed_at`; grows when reinforced, decays with time.
    pub strength: f32,
    pub decayed_at: Option<DateTime<Utc>>,
    /// Created or last reinforced.
    pub last_seen_at: DateTime<Utc>,
    /// Later sources that said the same thing; the memory keeps them all.
    pub reinforcements: Vec<Reinforcement>,
    /// Where in a game it was made, for position-indexed recall.
    pub position: Option<PositionTag>,
    /// The concepts it names (`concepts::memory_tags`), recomputed when its
    /// words change.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A later source of the same memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reinforcement {
    pub match_id: Option<MatchId>,
    pub created_by: CreatedBy,
    pub content: String,
    pub at: DateTime<Utc>,
}

/// The board when a memory was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionTag {
    /// Zobrist hash of the position, 16 hex digits.
    pub key: String,
    pub eco: Option<String>,
    pub opening: Option<String>,
}

impl Memory {
    /// A memory with every optional field at its default: no owner (lore
    /// until a player is set), no match, importance 0.5, never recalled.
    pub fn new(
        persona_id: impl Into<PersonaId>,
        memory_type: MemoryType,
        content: &str,
        created_by: CreatedBy,
    ) -> Memory {
        let now = Utc::now();
        let mut memory = Memory {
            id: MemoryId::new(),
            player_id: None,
            persona_id: persona_id.into(),
            memory_type,
            content: content.to_string(),
            related_match_id: None,
            created_by,
            metadata: serde_json::json!({}),
            created_at: now,
            importance: 0.5,
            pinned: false,
            never_recall: false,
            recall_count: 0,
            last_recalled_at: None,
            updated_at: None,
            valid_to: None,
            superseded_by: None,
            strength: 1.0,
            decayed_at: None,
            last_seen_at: now,
            reinforcements: Vec::new(),
            position: None,
            tags: Vec::new(),
        };
        memory.retag();
        memory
    }

    /// Tags from the words and the board it was made at.
    pub fn retag(&mut self) {
        let opening = self.position.as_ref().and_then(|p| p.opening.as_deref());
        self.tags = super::concepts::memory_tags(&self.content, self.memory_type, opening);
        // The persona's own lore is not something the player told.
        if self.created_by == CreatedBy::PersonaLore {
            self.tags.retain(|t| t != "personal");
        }
        let keys: Vec<String> = self.keys().into_iter().map(key_tag).collect();
        self.tags.extend(keys);
    }

    /// Whether the subconscious may offer it.
    pub fn recallable(&self) -> bool {
        !self.never_recall && self.valid_to.is_none()
    }

    /// The words that bring it up when the player says them (a lorebook
    /// entry's keys), if it has any.
    pub fn keys(&self) -> Vec<&str> {
        let keys = self.metadata.get("keys").and_then(|k| k.as_array());
        keys.map_or_else(Vec::new, |k| k.iter().filter_map(|k| k.as_str()).collect())
    }

    /// What recall by words reads: its text, and its keys.
    pub fn lexical_text(&self) -> String {
        std::iter::once(self.content.as_str())
            .chain(self.keys())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The tag a lorebook key gives its memory: `key:` and its words in lower
/// case ("key:king's gambit").
pub fn key_tag(key: &str) -> String {
    format!("key:{}", key_words(key).join(" "))
}

fn key_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The key tags a chat line says: its words, and its runs of two and three
/// words (keys may be names of several words), at most 96.
pub fn key_tags_in(text: &str) -> Vec<String> {
    let words = key_words(text);
    let mut tags: Vec<String> = Vec::new();
    for n in 1..=3 {
        for run in words.windows(n) {
            let tag = format!("key:{}", run.join(" "));
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
    }
    tags.truncate(96);
    tags
}

/// One time a memory was handed to the main agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecallRecord {
    pub match_id: MatchId,
    pub trigger: String,
    pub score: f32,
    pub reason: String,
    pub recalled_at: DateTime<Utc>,
}

/// A memory found by a search, with its similarity to the query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recalled {
    pub memory: Memory,
    /// Cosine similarity to the query.
    pub similarity: f32,
    /// The ranking score (the similarity until ranked).
    pub score: f32,
    /// Why it was recalled beyond the text match (e.g. the same position).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// The relevance model's probability that a chat line was about this
    /// memory (`subconscious::relevance`), when it judged it: what comes to
    /// mind is handed to the brain at a lower bar than what is said aloud.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<f32>,
}

/// How much of a text a model's thread keeps of each earlier turn.
pub const THREAD_CHARS: usize = 120;

/// A text as a model's thread keeps it ("noted: ..."): its first
/// `THREAD_CHARS` characters, with "…" when cut. Erasure looks for this form
/// too.
pub fn clipped(text: &str) -> String {
    let kept: String = text.chars().take(THREAD_CHARS).collect();
    if kept.len() < text.len() {
        format!("{kept}…")
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lorebook_key_is_a_tag_a_chat_line_can_say() {
        let mut lore = Memory::new(
            "rook",
            MemoryType::PersonalNote,
            "He kept a lighthouse.",
            CreatedBy::PersonaLore,
        );
        lore.metadata = serde_json::json!({ "lore": true, "keys": ["Brannock Light", "lighthouse"] });
        lore.retag();
        assert!(lore.tags.contains(&"key:brannock light".to_string()), "{:?}", lore.tags);
        let said = key_tags_in("Did you see the Brannock light, Captain?");
        assert!(
            said.contains(&key_tag("Brannock Light")) && said.contains(&"key:captain".to_string()),
            "{said:?}"
        );
        assert!(!key_tags_in("lighthouses everywhere").contains(&key_tag("lighthouse")));
        assert_eq!(lore.lexical_text(), "He kept a lighthouse. Brannock Light lighthouse");
    }
}
