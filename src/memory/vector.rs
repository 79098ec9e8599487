//! The vector index seam. qdrant-edge (embedded) is the default; a Qdrant
//! server is the scale-out alternative. SQL holds the memories themselves;
//! the index holds vectors and the few payload fields that filters need.

use std::collections::HashMap;

use async_trait::async_trait;

use super::lexical::Sparse;
use super::model::{Memory, MemoryType};
use crate::ids::{MatchId, MemoryId, PersonaId, PlayerId};

#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    #[error("vector store: {0}")]
    Store(String),
    #[error("the vector index cannot be written: {0}")]
    ReadOnly(String),
}

/// How a payload field is indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    Keyword,
    Bool,
    Integer,
}

/// The payload fields every backend indexes, so filters stay fast.
pub const INDEXED_FIELDS: [(&str, FieldKind); 11] = [
    ("player_id", FieldKind::Keyword),
    ("persona_id", FieldKind::Keyword),
    ("memory_type", FieldKind::Keyword),
    ("match_id", FieldKind::Keyword),
    ("position_key", FieldKind::Keyword),
    ("eco", FieldKind::Keyword),
    ("tags", FieldKind::Keyword),
    ("line", FieldKind::Keyword),
    ("lore", FieldKind::Bool),
    ("created_at", FieldKind::Integer),
    ("recallable", FieldKind::Bool),
];

/// What the index keeps per memory, for filtering.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexedMemory {
    pub id: MemoryId,
    pub vector: Vec<f32>,
    pub player_id: Option<PlayerId>,
    pub persona_id: PersonaId,
    pub memory_type: MemoryType,
    pub match_id: Option<MatchId>,
    /// Unix seconds.
    pub created_at: i64,
    /// False for never-recall and superseded memories.
    pub recallable: bool,
    /// Zobrist key and ECO code of the board it was made at.
    pub position_key: Option<String>,
    pub eco: Option<String>,
    /// The concepts it names (`concepts`), for recall by concept.
    pub tags: Vec<String>,
    /// The positions along the line of moves its words give (`openings::line_keys`).
    pub line: Vec<String>,
    /// Its words for BM25 recall (`lexical::document`).
    pub text: Sparse,
}

impl IndexedMemory {
    /// The payload every backend stores with the vector (the fields filters use).
    pub fn payload(&self) -> serde_json::Value {
        serde_json::json!({
            "player_id": self.player_id.map(|p| p.to_string()),
            "persona_id": self.persona_id,
            "memory_type": self.memory_type.as_str(),
            "match_id": self.match_id.map(|id| id.to_string()),
            "lore": self.player_id.is_none(),
            "created_at": self.created_at,
            "recallable": self.recallable,
            "position_key": self.position_key,
            "eco": self.eco,
            "tags": self.tags,
            "line": self.line,
        })
    }

    pub fn new(memory: &Memory, vector: Vec<f32>) -> IndexedMemory {
        IndexedMemory {
            id: memory.id,
            vector,
            player_id: memory.player_id,
            persona_id: memory.persona_id.clone(),
            memory_type: memory.memory_type,
            match_id: memory.related_match_id,
            created_at: memory.created_at.timestamp(),
            recallable: memory.recallable(),
            position_key: memory.position.as_ref().map(|p| p.key.clone()),
            eco: memory.position.as_ref().and_then(|p| p.eco.clone()),
            tags: memory.tags.clone(),
            line: crate::chess::openings::line_keys(&memory.content),
            text: super::lexical::document(&memory.lexical_text()),
        }
    }
}

/// Which memories a search may return. Player memories are private to one
/// player and persona; lore is shared by every player of that persona.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    /// This persona's memories only (None: any persona's).
    pub persona_id: Option<PersonaId>,
    /// This player's memories (None: none of any player's).
    pub player_id: Option<PlayerId>,
    pub include_lore: bool,
    /// Only these types (empty: any).
    pub types: Vec<MemoryType>,
    pub exclude_ids: Vec<MemoryId>,
    /// Drop memories of this match created at or after this time (unix s).
    pub exclude_created_in_match_since: Option<(MatchId, i64)>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    /// Also return never-recall and superseded memories (the player's own review).
    pub include_unrecallable: bool,
    /// Only memories made at this position or in this opening.
    pub board: Option<BoardFilter>,
    /// Only memories naming at least one of these concepts (empty: any).
    pub tags: Vec<String>,
}

/// Matches a memory made at `position_key`, or whose line of moves passes
/// through it (`line`), or made in opening `eco`.
#[derive(Debug, Clone, Default)]
pub struct BoardFilter {
    pub position_key: Option<String>,
    pub eco: Option<String>,
    pub line: Option<String>,
}

impl BoardFilter {
    pub fn is_empty(&self) -> bool {
        self.position_key.is_none() && self.eco.is_none() && self.line.is_none()
    }

    /// The payload fields and the values they must hold, any one of them.
    pub fn places(&self) -> Vec<(&'static str, String)> {
        [
            ("position_key", &self.position_key),
            ("eco", &self.eco),
            ("line", &self.line),
        ]
        .into_iter()
        .filter_map(|(field, value)| value.clone().map(|v| (field, v)))
        .collect()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: MemoryId,
    pub score: f32,
}

#[async_trait]
pub trait VectorStore: Send + Sync {
    async fn upsert(&self, points: Vec<IndexedMemory>) -> Result<(), VectorError>;
    async fn delete(&self, ids: Vec<MemoryId>) -> Result<(), VectorError>;
    async fn search(&self, vector: Vec<f32>, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError>;
    /// By words: BM25 of the query's terms over the memories' words, best
    /// first (nothing when the query has no term, or the index no words).
    async fn search_words(&self, words: Sparse, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError>;
    /// Several searches for one vector, each answer best first; a store that
    /// can runs them in one call.
    async fn search_many(
        &self,
        vector: Vec<f32>,
        searches: Vec<(SearchFilter, usize)>,
    ) -> Result<Vec<Vec<Hit>>, VectorError> {
        let mut found = Vec::with_capacity(searches.len());
        for (filter, limit) in searches {
            found.push(self.search(vector.clone(), filter, limit).await?);
        }
        Ok(found)
    }
    async fn count(&self) -> Result<u64, VectorError>;
    async fn set_recallable(&self, ids: Vec<MemoryId>, recallable: bool) -> Result<(), VectorError>;
    /// Every point's id and recallable flag, for checking the index against
    /// SQL after an unclean shutdown.
    async fn states(&self) -> Result<Vec<(MemoryId, bool)>, VectorError>;
    /// The stored vectors of these points (missing ones are left out): a
    /// memory's vector without running the model again.
    async fn vectors(&self, ids: Vec<MemoryId>) -> Result<HashMap<MemoryId, Vec<f32>>, VectorError>;
    /// Whether writes can go through now (a cheap probe; a store that
    /// cannot tell says yes).
    async fn writable(&self) -> Result<(), VectorError> {
        Ok(())
    }
    /// Persists buffered writes and compacts; call off the hot path.
    async fn maintain(&self) -> Result<(), VectorError>;
    /// Puts every write so far on disk (a clean shutdown's last step); a
    /// server store persists on its own.
    async fn flush(&self) -> Result<(), VectorError> {
        Ok(())
    }
}
