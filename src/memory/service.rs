//! Saving and recalling memories: SQL first (the record of truth), then the
//! vector index. An index that falls behind SQL is repaired at start-up.

use std::sync::Arc;

use super::embed::{EmbedError, Embedder};
use super::model::{CreatedBy, Memory, MemoryType, Recalled};
use super::vector::{IndexedMemory, SearchFilter, VectorError, VectorStore};
use crate::ids::{MatchId, MemoryId, PlayerId};
use crate::personas::Persona;
use crate::store::{Db, StoreError};

pub const MAX_CONTENT_CHARS: usize = 500;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Vector(#[from] VectorError),
    #[error("memory content must be 1..={MAX_CONTENT_CHARS} characters")]
    BadContent,
    #[error("memory not found")]
    NotFound,
}

pub struct NewMemory {
    pub player_id: PlayerId,
    pub persona_id: String,
    pub memory_type: MemoryType,
    pub content: String,
    pub related_match_id: Option<MatchId>,
    pub created_by: CreatedBy,
    pub metadata: serde_json::Value,
    /// 0..=1: how much it matters (clamped).
    pub importance: f32,
}

#[derive(Clone)]
pub struct MemoryService {
    db: Db,
    embedder: Embedder,
    index: Arc<dyn VectorStore>,
}

impl MemoryService {
    pub fn new(db: Db, embedder: Embedder, index: Arc<dyn VectorStore>) -> MemoryService {
        MemoryService { db, embedder, index }
    }

    pub fn embedder(&self) -> &Embedder {
        &self.embedder
    }

    pub(super) fn db(&self) -> &Db {
        &self.db
    }

    pub(super) fn index(&self) -> &dyn VectorStore {
        self.index.as_ref()
    }

    pub async fn save(&self, new: NewMemory) -> Result<Memory, MemoryError> {
        let content = new.content.trim().to_string();
        if content.is_empty() || content.chars().count() > MAX_CONTENT_CHARS {
            return Err(MemoryError::BadContent);
        }
        let memory = Memory {
            player_id: Some(new.player_id),
            related_match_id: new.related_match_id,
            metadata: new.metadata,
            importance: new.importance.clamp(0.0, 1.0),
            ..Memory::new(&new.persona_id, new.memory_type, &content, new.created_by)
        };
        self.db.insert_memory(&memory).await?;
        self.index_memories(std::slice::from_ref(&memory)).await?;
        Ok(memory)
    }

    /// Semantic search, best first; memories below `min_score` are dropped.
    pub async fn search(
        &self,
        query: &str,
        filter: SearchFilter,
        limit: usize,
        min_score: f32,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let vector = self.embedder.embed_one(query).await?;
        let hits = self.index.search(vector, filter, limit).await?;
        let hits: Vec<_> = hits.into_iter().filter(|h| h.score >= min_score).collect();
        let ids: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let mut found = self.db.memories_by_ids(&ids).await?;
        // Keep the index's order; a hit whose row is gone (deleted) is skipped.
        Ok(hits
            .iter()
            .filter_map(|h| {
                let pos = found.iter().position(|m| m.id == h.id)?;
                Some(Recalled {
                    memory: found.swap_remove(pos),
                    score: h.score,
                })
            })
            .collect())
    }

    /// Makes the lore in SQL and the index match the persona files.
    pub async fn sync_lore(&self, personas: &[Persona]) -> Result<(), MemoryError> {
        for persona in personas {
            let stored = self.db.lore(&persona.id).await?;
            let stale: Vec<MemoryId> = stored
                .iter()
                .filter(|m| !persona.lore.contains(&m.content))
                .map(|m| m.id)
                .collect();
            for id in &stale {
                self.db.delete_memory(*id).await?;
            }
            if !stale.is_empty() {
                self.index.delete(stale).await?;
            }
            let fresh: Vec<Memory> = persona
                .lore
                .iter()
                .filter(|text| !stored.iter().any(|m| &&m.content == text))
                .map(|text| lore_memory(persona, text))
                .collect();
            for m in &fresh {
                self.db.insert_memory(m).await?;
            }
            self.index_memories(&fresh).await?;
        }
        Ok(())
    }

    /// Re-indexes everything when the index and SQL disagree on the count.
    /// Returns how many memories were re-indexed.
    pub async fn repair_index(&self, progress: impl Fn(u64, u64)) -> Result<u64, MemoryError> {
        let in_sql = self.db.memory_count().await?;
        if self.index.count().await? == in_sql {
            return Ok(0);
        }
        tracing::warn!("vector index disagrees with SQL ({in_sql} memories); re-indexing");
        self.reindex(progress).await
    }

    pub async fn reindex(&self, progress: impl Fn(u64, u64)) -> Result<u64, MemoryError> {
        let total = self.db.memory_count().await?;
        let (mut done, mut after) = (0u64, None);
        loop {
            let page = self.db.memory_page(after, 256).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.id);
            self.index_memories(&page).await?;
            done += page.len() as u64;
            progress(done, total);
        }
        self.index.maintain().await?;
        Ok(done)
    }

    pub(super) async fn index_memories(&self, memories: &[Memory]) -> Result<(), MemoryError> {
        if memories.is_empty() {
            return Ok(());
        }
        let texts = memories.iter().map(|m| m.content.clone()).collect();
        let vectors = self.embedder.embed(texts).await?;
        let points = memories
            .iter()
            .zip(vectors)
            .map(|(m, v)| IndexedMemory::new(m, v))
            .collect();
        self.index.upsert(points).await?;
        Ok(())
    }

    pub async fn maintain(&self) -> Result<(), MemoryError> {
        Ok(self.index.maintain().await?)
    }
}

fn lore_memory(persona: &Persona, text: &str) -> Memory {
    Memory {
        metadata: serde_json::json!({ "lore": true }),
        importance: 1.0,
        ..Memory::new(&persona.id, MemoryType::PersonalNote, text, CreatedBy::PersonaLore)
    }
}
