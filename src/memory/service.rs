//! Saving and recalling memories: SQL first (the record of truth), then the
//! vector index. An index that falls behind SQL is repaired at start-up.

use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::model::{CreatedBy, Memory, MemoryType, PositionTag, Recalled};
use super::policy::{self, Verdict};
use super::strength;
use super::vector::{Hit, IndexedMemory, SearchFilter, VectorError, VectorStore};
use crate::config::MemoryConfig;
use crate::embed::{EmbedError, Embedder};
use crate::ids::{MatchId, MemoryId, PersonaId, PlayerId};
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
    #[error("cannot record the index's embedding model in {path}: {source}")]
    Record { path: PathBuf, source: std::io::Error },
}

pub struct NewMemory {
    pub player_id: PlayerId,
    pub persona_id: PersonaId,
    pub memory_type: MemoryType,
    pub content: String,
    pub related_match_id: Option<MatchId>,
    pub created_by: CreatedBy,
    pub metadata: serde_json::Value,
    /// 0..=1: how much it matters (clamped).
    pub importance: f32,
    /// The board, when the memory is made during a game.
    pub position: Option<PositionTag>,
}

/// What `reconcile_index` changed in the index.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reconciled {
    /// Memories in SQL the index lacked.
    pub indexed: usize,
    /// Points with no SQL row.
    pub removed: usize,
    /// Points whose recallable flag disagreed with SQL.
    pub reflagged: usize,
}

/// One vector search: which memories, how many, how similar at least.
#[derive(Debug, Clone)]
pub struct Search {
    pub filter: SearchFilter,
    pub limit: usize,
    pub min_score: f32,
}

/// What the write policy did with a new memory.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The stored memory: the new one, or the older one it reinforced.
    pub memory: Memory,
    pub reinforced: bool,
    /// Older memories it contradicted, now superseded by `memory`.
    pub superseded: Vec<MemoryId>,
}

/// What a save did: a new row, a known memory made stronger, or a new row
/// that replaced what it contradicted.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SaveOutcome {
    Inserted,
    Reinforced,
    Superseded,
}

impl SaveOutcome {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Saved {
    pub fn outcome(&self) -> SaveOutcome {
        match (self.reinforced, self.superseded.is_empty()) {
            (true, _) => SaveOutcome::Reinforced,
            (false, false) => SaveOutcome::Superseded,
            (false, true) => SaveOutcome::Inserted,
        }
    }
}

/// How many of a player's nearest memories the write policy compares against.
const POLICY_CANDIDATES: usize = 8;

#[derive(Clone)]
pub struct MemoryService {
    db: Db,
    embedder: Embedder,
    index: Arc<dyn VectorStore>,
    config: MemoryConfig,
    /// What a memory is about and the concepts it touches, by its meaning
    /// (`reading::Readers`), loaded at start; without them (no corpus could
    /// be trained) memories are tagged by their words alone.
    readers: Arc<std::sync::OnceLock<super::reading::Readers>>,
}

impl MemoryService {
    /// Time spent embedding so far (queries and new memories alike).
    pub fn embedding_busy(&self) -> std::time::Duration {
        self.embedder.busy()
    }

    pub fn embedding_stats(&self) -> crate::embed::EmbedStats {
        self.embedder.stats()
    }

    /// Keeps a fixed set of query texts embedded for good (see `Embedder::pin`).
    pub async fn pin_queries(&self, texts: Vec<String>, cache: &std::path::Path) -> Result<usize, MemoryError> {
        Ok(self.embedder.pin(texts, cache).await?)
    }

    pub fn new(db: Db, embedder: Embedder, index: Arc<dyn VectorStore>, config: MemoryConfig) -> MemoryService {
        MemoryService {
            db,
            embedder,
            index,
            config,
            readers: Arc::default(),
        }
    }

    /// Loads the readers of a memory's meaning from beside the model in
    /// `models_dir`, or trains them there; memories written from then on
    /// carry their subject and concepts. Returns whether they trained.
    pub async fn load_readers(&self, models_dir: &std::path::Path) -> Result<bool, crate::learn::LearnError> {
        if self.readers.get().is_some() {
            return Ok(false);
        }
        let (readers, trained) = super::reading::Readers::load_or_train(&self.embedder, models_dir).await?;
        let _ = self.readers.set(readers);
        Ok(trained)
    }

    /// The learned readers of a memory's meaning, once loaded.
    pub fn readers(&self) -> Option<&super::reading::Readers> {
        self.readers.get()
    }

    pub fn config(&self) -> &MemoryConfig {
        &self.config
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

    /// Stores a memory under the write policy: a near-duplicate reinforces
    /// the older memory, a contradiction supersedes it.
    pub async fn save(&self, new: NewMemory) -> Result<Saved, MemoryError> {
        let content = new.content.trim().to_string();
        if content.is_empty() || content.chars().count() > MAX_CONTENT_CHARS {
            return Err(MemoryError::BadContent);
        }
        let mut memory = Memory {
            player_id: Some(new.player_id),
            related_match_id: new.related_match_id,
            metadata: new.metadata,
            importance: new.importance.clamp(0.0, 1.0),
            position: new.position,
            ..Memory::new(&new.persona_id, new.memory_type, &content, new.created_by)
        };
        // Nothing reaches SQL if the index cannot take it too.
        self.index.writable().await?;
        let vector = self.embedder.embed_one(&memory.content).await?;
        self.tag(&mut memory, &vector);
        let mut duplicate = None;
        let mut superseded = Vec::new();
        for (older, similarity) in self.similar_current(&memory, vector.clone()).await? {
            match policy::judge(&memory, &older, similarity, &self.config) {
                Verdict::Duplicate if duplicate.is_none() => duplicate = Some(older),
                Verdict::Contradicts => superseded.push(older.id),
                _ => {}
            }
        }
        let now = Utc::now();
        let reinforced = duplicate.is_some();
        let stored = match duplicate {
            Some(older) => self.reinforce(older, &memory, now).await?,
            None => memory,
        };
        let new_row = (!reinforced).then_some(&stored);
        if new_row.is_some() || !superseded.is_empty() {
            self.db.insert_superseding(new_row, &superseded, stored.id, now).await?;
        }
        if new_row.is_some() {
            self.index.upsert(vec![IndexedMemory::new(&stored, vector)]).await?;
        }
        if !superseded.is_empty() {
            self.index.set_recallable(superseded.clone(), false).await?;
        }
        let saved = Saved {
            memory: stored,
            reinforced,
            superseded,
        };
        crate::telemetry::memory_saved(saved.outcome().as_str());
        Ok(saved)
    }

    /// The player's current memories nearest to `memory`, with similarity.
    async fn similar_current(&self, memory: &Memory, vector: Vec<f32>) -> Result<Vec<(Memory, f32)>, MemoryError> {
        let filter = SearchFilter {
            persona_id: Some(memory.persona_id.clone()),
            player_id: memory.player_id,
            include_unrecallable: true,
            ..SearchFilter::default()
        };
        let hits = self.index.search(vector, filter, POLICY_CANDIDATES).await?;
        let found = self.rows_in_hit_order(&hits).await?;
        Ok(found
            .into_iter()
            .filter(|r| r.memory.valid_to.is_none())
            .map(|r| (r.memory, r.score))
            .collect())
    }

    async fn reinforce(&self, mut older: Memory, newer: &Memory, now: DateTime<Utc>) -> Result<Memory, MemoryError> {
        strength::absorb(&mut older, newer, now, &self.config);
        self.db.save_reinforcement(&older).await?;
        Ok(older)
    }

    /// The SQL rows of `hits`, in the index's order; a hit whose row is gone is skipped.
    pub(super) async fn rows_in_hit_order(&self, hits: &[Hit]) -> Result<Vec<Recalled>, MemoryError> {
        let ids: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
        let mut found = self.db.memories_by_ids(&ids).await?;
        Ok(hits
            .iter()
            .filter_map(|h| {
                let pos = found.iter().position(|m| m.id == h.id)?;
                Some(Recalled {
                    memory: found.swap_remove(pos),
                    similarity: h.score,
                    score: h.score,
                    why: String::new(),
                    relevance: None,
                })
            })
            .collect())
    }

    /// After a clean stop the counts tell: if the index and SQL disagree,
    /// reconciles them (`reconcile_index`) and says what it changed.
    pub async fn repair_index(&self, progress: impl Fn(u64, u64)) -> Result<Reconciled, MemoryError> {
        let (in_sql, in_index) = (self.db.memory_count().await?, self.index.count().await?);
        if in_index == in_sql {
            return Ok(Reconciled::default());
        }
        tracing::warn!("vector index disagrees with SQL ({in_index} points, {in_sql} memories); reconciling");
        self.reconcile_index(progress).await
    }

    /// After an unclean shutdown, SQL (the truth) and the index may differ in
    /// a memory or two that were being written: this makes the index hold
    /// exactly SQL's memories, each with SQL's recallable flag.
    pub async fn reconcile_index(&self, progress: impl Fn(u64, u64)) -> Result<Reconciled, MemoryError> {
        let mut in_index: std::collections::HashMap<MemoryId, bool> = self.index.states().await?.into_iter().collect();
        let total = self.db.memory_count().await?;
        let (mut done, mut after, mut fixed) = (0u64, None, Reconciled::default());
        let (mut flag_on, mut flag_off) = (Vec::new(), Vec::new());
        loop {
            let page = self.db.memory_page(after, 1000).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.id);
            let mut missing = Vec::new();
            for m in page {
                match in_index.remove(&m.id) {
                    None => missing.push(m),
                    Some(flag) if flag != m.recallable() => match m.recallable() {
                        true => flag_on.push(m.id),
                        false => flag_off.push(m.id),
                    },
                    Some(_) => {}
                }
            }
            fixed.indexed += missing.len();
            // Tagged anew as they go in: an index rebuilt for a new layout
            // (`EdgeStore::open`) also brings old memories' tags up to date.
            if !missing.is_empty() {
                self.retag_and_index(&mut missing).await?;
            }
            done += 1000;
            progress(done.min(total), total);
        }
        fixed.reflagged = flag_on.len() + flag_off.len();
        for (ids, flag) in [(flag_on, true), (flag_off, false)] {
            if !ids.is_empty() {
                self.index.set_recallable(ids, flag).await?;
            }
        }
        // What is left in the index has no SQL row: erased or never committed.
        fixed.removed = in_index.len();
        if !in_index.is_empty() {
            self.index.delete(in_index.into_keys().collect()).await?;
        }
        Ok(fixed)
    }

    /// Vectors of two models do not compare, and a memory's tags are what
    /// its readers made of it: if the index was made by another embedding
    /// model, or its memories tagged by other readers, than those loaded
    /// (as `record`, beside the data, says), every memory is embedded and
    /// tagged again. An index that predates the record counts as another
    /// model's unless it is empty. Returns how many memories were redone.
    pub async fn ensure_index_model(
        &self,
        record: &super::ModelRecord,
        progress: impl Fn(u64, u64),
    ) -> Result<u64, MemoryError> {
        let digest: String = self
            .embedder
            .model_digest()
            .await?
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let current = match self.readers() {
            Some(readers) => format!("{digest} readers {}", readers.version()),
            None => digest,
        };
        let recorded = record.read(&self.db).await?;
        let recorded = recorded.as_deref();
        if recorded == Some(current.as_str()) {
            return Ok(0);
        }
        let mut embedded = 0;
        if recorded.is_some() || self.index.count().await? > 0 {
            tracing::warn!(
                "the vector index was made by another embedding model or tagged by other readers ({}; now {current}): embedding and tagging every memory again",
                recorded.unwrap_or("not recorded")
            );
            embedded = self.reindex(progress).await?;
        }
        record.write(&self.db, &current).await?;
        Ok(embedded)
    }

    /// Embeds every memory in SQL again and drops the index's points that
    /// have no row (they would never be recalled, yet cost every search).
    pub async fn reindex(&self, progress: impl Fn(u64, u64)) -> Result<u64, MemoryError> {
        let total = self.db.memory_count().await?;
        let (mut done, mut after) = (0u64, None);
        let mut in_sql = std::collections::HashSet::new();
        loop {
            let mut page = self.db.memory_page(after, 256).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.id);
            in_sql.extend(page.iter().map(|m| m.id));
            self.retag_and_index(&mut page).await?;
            done += page.len() as u64;
            progress(done, total);
        }
        let orphans: Vec<MemoryId> = self
            .index
            .states()
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| !in_sql.contains(id))
            .collect();
        if !orphans.is_empty() {
            tracing::info!(
                "{} points with no memory in SQL removed from the vector index",
                orphans.len()
            );
            self.index.delete(orphans).await?;
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

    /// Whether memories can be written now (the index answers a probe).
    pub async fn writable(&self) -> Result<(), MemoryError> {
        Ok(self.index.writable().await?)
    }

    /// Memories in SQL and points in the index: equal when they agree.
    pub async fn counts(&self) -> Result<(u64, u64), MemoryError> {
        Ok((self.db.memory_count().await?, self.index.count().await?))
    }

    pub async fn maintain(&self) -> Result<(), MemoryError> {
        Ok(self.index.maintain().await?)
    }

    /// Every index write so far on disk, for a clean shutdown.
    pub async fn flush_index(&self) -> Result<(), MemoryError> {
        Ok(self.index.flush().await?)
    }
}
