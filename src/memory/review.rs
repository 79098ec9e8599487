//! What a player may do with what is remembered about them: look, search,
//! see provenance, correct, pin, forbid, and erase.

use super::MemoryQuery;
use super::model::{Memory, RecallRecord, Recalled, clipped};
use super::service::{MAX_CONTENT_CHARS, MemoryError, MemoryService};
use super::vector::SearchFilter;
use crate::ids::{MemoryId, PersonaId, PlayerId};
use crate::store::scrub::Forms;
use crate::store::{Erasure, MemoryVersion, RecallEntry};

impl MemoryService {
    pub async fn get(&self, id: MemoryId) -> Result<Option<Memory>, MemoryError> {
        Ok(self.db().memory(id).await?)
    }

    pub async fn list(&self, player: PlayerId, query: &MemoryQuery) -> Result<Vec<Memory>, MemoryError> {
        Ok(self.db().player_memories(player, query).await?)
    }

    pub async fn recalls(&self, id: MemoryId) -> Result<Vec<RecallRecord>, MemoryError> {
        Ok(self.db().recalls(id).await?)
    }

    /// Semantic search over all of a player's own memories, never-recall and
    /// superseded ones included.
    pub async fn search_own(
        &self,
        player: PlayerId,
        persona: Option<PersonaId>,
        query: &str,
        limit: usize,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let filter = SearchFilter {
            persona_id: persona,
            player_id: Some(player),
            include_unrecallable: true,
            ..SearchFilter::default()
        };
        self.search(query, filter, limit, f32::MIN).await
    }

    /// Replaces the text and re-embeds it.
    pub async fn edit(&self, id: MemoryId, content: &str) -> Result<Memory, MemoryError> {
        let content = content.trim();
        if content.is_empty() || content.chars().count() > MAX_CONTENT_CHARS {
            return Err(MemoryError::BadContent);
        }
        // Refused whole, before SQL changes, if the index cannot follow.
        self.index().writable().await?;
        let mut memory = self.get(id).await?.ok_or(MemoryError::NotFound)?;
        memory.content = content.to_string();
        let vector = self.embedder().embed_one(content).await?;
        self.tag(&mut memory, &vector);
        self.db().update_memory_content(id, content, &memory.tags).await?;
        let memory = self.get(id).await?.ok_or(MemoryError::NotFound)?;
        self.index_memories(std::slice::from_ref(&memory)).await?;
        Ok(memory)
    }

    pub async fn set_flags(
        &self,
        id: MemoryId,
        pinned: Option<bool>,
        never_recall: Option<bool>,
    ) -> Result<Memory, MemoryError> {
        self.index().writable().await?;
        self.db().set_memory_flags(id, pinned, never_recall).await?;
        let memory = self.get(id).await?.ok_or(MemoryError::NotFound)?;
        self.index().set_recallable(vec![id], memory.recallable()).await?;
        Ok(memory)
    }

    /// Gone from SQL and the index, with every copy of every text it ever
    /// had scrubbed from its owner's rows (see `store::erasure`). Lore has
    /// no owner and is not erased here. Returns the forms forgotten, for
    /// whatever still holds them in memory (a live model thread).
    pub async fn erase(&self, memory: &Memory) -> Result<Forms, MemoryError> {
        let owner = memory.player_id.ok_or(MemoryError::NotFound)?;
        self.index().writable().await?;
        let texts = self.texts_of(memory).await?;
        let forms = Forms::new(texts.iter().map(String::as_str));
        let erased = self
            .db()
            .erase_memory(Erasure {
                id: memory.id,
                owner,
                forms: &forms,
            })
            .await?;
        tracing::info!(memory_id = %memory.id, turns = erased.turns, rows = erased.rows_rewritten, "memory erased");
        self.index().delete(vec![memory.id]).await?;
        Ok(forms)
    }

    /// Every text a memory ever had: its content and earlier versions, the
    /// words that reinforced it, the player's words it was made from, and
    /// the clipped form a model's thread keeps of each.
    async fn texts_of(&self, memory: &Memory) -> Result<Vec<String>, MemoryError> {
        let mut texts = vec![memory.content.clone()];
        texts.extend(
            self.db()
                .memory_versions(memory.id)
                .await?
                .into_iter()
                .map(|v| v.content),
        );
        texts.extend(memory.reinforcements.iter().map(|r| r.content.clone()));
        texts.extend(self.db().memory_sources(memory.id).await?);
        let clipped: Vec<String> = texts
            .iter()
            .map(|t| clipped(t))
            .filter(|c| !texts.contains(c))
            .collect();
        // A clipped form ends in "…", which the thread added: the kept part is what to find.
        texts.extend(clipped.into_iter().map(|c| c.trim_end_matches('…').to_string()));
        texts.sort();
        texts.dedup();
        Ok(texts)
    }

    /// A memory's earlier texts, oldest first.
    pub async fn versions(&self, id: MemoryId) -> Result<Vec<MemoryVersion>, MemoryError> {
        Ok(self.db().memory_versions(id).await?)
    }

    /// Everything remembered about a player, superseded included, each with
    /// every recall: the export a player is entitled to.
    pub async fn export(&self, player: PlayerId) -> Result<serde_json::Value, MemoryError> {
        let all = MemoryQuery {
            include_superseded: true,
            ..MemoryQuery::default()
        };
        let mut items = Vec::new();
        for memory in self.list(player, &all).await? {
            let recalls = self.recalls(memory.id).await?;
            let versions = self.versions(memory.id).await?;
            items.push(serde_json::json!({ "memory": memory, "versions": versions, "recalls": recalls }));
        }
        Ok(serde_json::json!({ "player_id": player, "exported_at": chrono::Utc::now(), "memories": items }))
    }
}

/// The recall log's entries for these memories handed to the main agent:
/// why each came, the words searched for, and the board when that mattered.
pub fn recall_entries(recalled: &[Recalled], query: &str) -> Vec<RecallEntry> {
    recalled
        .iter()
        .map(|r| {
            let matched = format!("matched \"{query}\"");
            let reason = if r.why.is_empty() {
                matched
            } else {
                format!("{}; {matched}", r.why)
            };
            (r.memory.id, r.score, reason)
        })
        .collect()
}
