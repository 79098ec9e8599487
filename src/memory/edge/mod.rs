//! `VectorStore` on qdrant-edge: a persistent shard in the data dir. The
//! shard's API is synchronous, so every call runs on the blocking pool.
//! Writers (and the flush) go one at a time (the shard's flush panics if
//! another update holds its WAL), but beside searches, which would otherwise
//! wait behind a flush's tens of milliseconds. `optimize` (the maintenance
//! job; 53 s at 1M memories) runs beside searches too: qdrant's optimiser
//! builds new segments behind proxies and swaps them in, so only writes wait
//! for it. Writes are flushed to the segment
//! files by a background thread every `FLUSH_EVERY`, not one by one: each
//! flush is an msync and an fsync, and under load they were a sixth of the
//! server's CPU.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use async_trait::async_trait;
use qdrant_edge::{
    CreateIndex, Distance, EdgeConfigBuilder, EdgeShard, EdgeSparseVectorParams, EdgeVectorParams,
    FieldIndexOperations, HnswIndexConfig, Modifier, Payload, PayloadFieldSchema, PayloadOps, PayloadSchemaType,
    PointId, PointInsertOperations, PointOperations, ScrollRequest, SearchRequest, SetPayloadOp, UpdateOperation,
    WithPayloadInterface, WithVector,
};
use serde_json::json;

use super::lexical::{Sparse, TEXT_VECTOR};
use super::vector::{FieldKind, Hit, INDEXED_FIELDS, IndexedMemory, SearchFilter, VectorError, VectorStore};
use crate::embed::DIMENSIONS;
use crate::ids::MemoryId;

mod convert;
use convert::{dense, hits, key, search_request, to_point, words_request};

pub struct EdgeStore {
    /// Shared by searches, writes and the optimiser; qdrant-edge locks
    /// its segments inside.
    shard: Arc<EdgeShard>,
    /// Held by every writer, so updates and flushes never overlap.
    writer: Arc<Mutex<()>>,
    path: PathBuf,
    /// Set by a write, cleared by the flush that persists it.
    dirty: Arc<AtomicBool>,
    flusher: Option<Flusher>,
}

/// The background flush thread; dropping `stop` ends it.
struct Flusher {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

/// How long a write may stay in memory only. A crash in between loses index
/// points, never a memory: SQL has it, and the check after an unclean
/// shutdown (`MemoryService::reconcile_index`) indexes it again.
pub const FLUSH_EVERY: Duration = Duration::from_millis(500);

/// How a call shares the shard.
#[derive(Clone, Copy)]
enum Access {
    /// A read of any size, beside writes, on the blocking pool.
    Search,
    /// A filtered search, on the caller's thread: two thread hops cost more
    /// than it.
    Quick,
    /// One at a time (the writer mutex), beside searches.
    Write,
}

/// Points per scroll page when listing the whole index.
const STATES_PAGE: usize = 10_000;

fn err(e: impl std::fmt::Display) -> VectorError {
    VectorError::Store(e.to_string())
}

impl EdgeStore {
    /// Opens the shard at `path`, creating it (with payload indexes) if new.
    /// A shard made before kibitz recalled by words lacks their sparse
    /// vector, which a shard cannot add: it is removed and made anew, empty,
    /// and the start-up check against SQL (the truth) indexes every memory
    /// into it again, with the tags and lines its points lacked too.
    pub fn open(path: &Path) -> Result<EdgeStore, VectorError> {
        let shard = match EdgeStore::load(path)? {
            Some(shard) if shard.config().sparse_vectors.contains_key(TEXT_VECTOR) => shard,
            Some(old) => {
                tracing::warn!(
                    "the vector index at {} predates recall by words and tags: rebuilding it from SQL",
                    path.display()
                );
                drop(old);
                std::fs::remove_dir_all(path).map_err(|e| err(format!("removing {}: {e}", path.display())))?;
                EdgeStore::create(path)?
            }
            None => EdgeStore::create(path)?,
        };
        for (field, kind) in INDEXED_FIELDS {
            let kind = match kind {
                FieldKind::Keyword => PayloadSchemaType::Keyword,
                FieldKind::Bool => PayloadSchemaType::Bool,
                FieldKind::Integer => PayloadSchemaType::Integer,
            };
            let op = FieldIndexOperations::CreateIndex(CreateIndex {
                field_name: key(field),
                field_schema: Some(PayloadFieldSchema::FieldType(kind)),
            });
            shard.update(UpdateOperation::FieldIndexOperation(op)).map_err(err)?;
        }
        let (shard, writer, dirty) = (Arc::new(shard), Arc::default(), Arc::default());
        let flusher = Flusher::start(path, Arc::downgrade(&shard), Arc::clone(&writer), Arc::clone(&dirty))?;
        Ok(EdgeStore {
            shard,
            writer,
            path: path.to_path_buf(),
            dirty,
            flusher: Some(flusher),
        })
    }

    fn load(path: &Path) -> Result<Option<EdgeShard>, VectorError> {
        if !path.join("edge_config.json").exists() {
            return Ok(None);
        }
        EdgeShard::load(path, None).map(Some).map_err(err)
    }

    fn create(path: &Path) -> Result<EdgeShard, VectorError> {
        std::fs::create_dir_all(path).map_err(|e| err(format!("{}: {e}", path.display())))?;
        // No HNSW graph (m = 0): searches are exact over one player's
        // memories (see `search`), so optimising only merges segments
        // instead of spending minutes and gigabytes on a graph at 1M.
        let no_graph = HnswIndexConfig {
            m: 0,
            ..HnswIndexConfig::default()
        };
        // The words' sparse vector is weighted by each term's inverse
        // document frequency at search time: BM25 (`lexical`).
        let config = EdgeConfigBuilder::new()
            .vector(
                qdrant_edge::DEFAULT_VECTOR_NAME,
                EdgeVectorParams::builder(DIMENSIONS, Distance::Cosine).build(),
            )
            .sparse_vector(
                TEXT_VECTOR,
                EdgeSparseVectorParams::builder().modifier(Modifier::Idf).build(),
            )
            .hnsw_config(no_graph)
            .build();
        EdgeShard::new(path, config).map_err(err)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One update, visible to searches at once and flushed within
    /// `FLUSH_EVERY` (qdrant-edge 0.7 writes a WAL but does not replay it on
    /// load: until the flush, a crash loses the point, and SQL restores it).
    async fn write(&self, op: UpdateOperation) -> Result<(), VectorError> {
        // Probed under the write lock, in the same blocking-pool hop.
        let (path, dirty) = (self.path.clone(), self.dirty.clone());
        self.with_shard(Access::Write, move |s| {
            EdgeStore::probe(&path)?;
            s.update(op).map_err(err)?;
            dirty.store(true, Ordering::Release);
            Ok(())
        })
        .await
    }

    /// Creates and removes a file in the shard and its WAL directory. A
    /// shard whose files cannot be written must not be written: its mmaps
    /// would kill the process with SIGBUS instead of returning an error.
    /// Each probe has a file of its own: the health check probes beside a
    /// writer, and a shared name let one remove the other's file and report
    /// a writable store as read-only.
    fn probe(path: &Path) -> Result<(), VectorError> {
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let n = PROBES.fetch_add(1, Ordering::Relaxed);
        for dir in [path.to_path_buf(), path.join("wal")] {
            let probe = dir.join(format!(".kibitz-write-probe-{}-{n}", std::process::id()));
            std::fs::write(&probe, b"")
                .and_then(|()| std::fs::remove_file(&probe))
                .map_err(|e| VectorError::ReadOnly(format!("{}: {e}", dir.display())))?;
        }
        Ok(())
    }

    async fn with_shard<T: Send + 'static>(
        &self,
        access: Access,
        f: impl FnOnce(&EdgeShard) -> Result<T, VectorError> + Send + 'static,
    ) -> Result<T, VectorError> {
        if let Access::Quick = access {
            return f(&self.shard);
        }
        let (shard, writer) = (self.shard.clone(), self.writer.clone());
        let writes = matches!(access, Access::Write);
        tokio::task::spawn_blocking(move || {
            let _one_writer = match writes {
                true => Some(writer.lock().map_err(|_| err("writer lock poisoned"))?),
                false => None,
            };
            f(&shard)
        })
        .await
        .map_err(err)?
    }
}

impl Flusher {
    fn start(
        path: &Path,
        shard: Weak<EdgeShard>,
        writer: Arc<Mutex<()>>,
        dirty: Arc<AtomicBool>,
    ) -> Result<Flusher, VectorError> {
        let (stop, stopped) = mpsc::channel();
        let path = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("kibitz-index-flush".into())
            .spawn(move || {
                let mut failing = false;
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(FLUSH_EVERY) {
                    let Some(shard) = shard.upgrade() else { return };
                    let failed = flush_if_dirty(&path, &shard, &writer, &dirty).err();
                    // One line when flushing starts failing and one when it recovers, not one every tick.
                    match (&failed, failing) {
                        (Some(e), false) => {
                            tracing::warn!("the vector index cannot be flushed ({e}); retrying every {FLUSH_EVERY:?}")
                        }
                        (None, true) => tracing::info!("the vector index is flushed again"),
                        _ => {}
                    }
                    failing = failed.is_some();
                }
            })
            .map_err(|e| err(format!("starting the index flush thread: {e}")))?;
        Ok(Flusher { stop, thread })
    }
}

/// Persists pending writes. On failure they stay pending for the next tick.
fn flush_if_dirty(path: &Path, shard: &EdgeShard, writer: &Mutex<()>, dirty: &AtomicBool) -> Result<(), VectorError> {
    let Ok(_one_writer) = writer.lock() else {
        return Err(err("writer lock poisoned"));
    };
    if !dirty.load(Ordering::Acquire) {
        return Ok(());
    }
    // qdrant-edge 0.7's flush panics on an I/O error (a full or read-only
    // disk): probe first, so the usual case (read-only) is an error and not a
    // panic in the log, and still catch the panic for what the probe misses.
    // A disk that turns read-only during the flush itself is out of reach: the
    // mmapped write raises SIGBUS, and the next start re-indexes from SQL.
    EdgeStore::probe(path)?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shard.flush()))
        .map_err(|_| err("the shard's flush panicked"))?;
    dirty.store(false, Ordering::Release);
    Ok(())
}

impl Drop for EdgeStore {
    /// Stops the flush thread first, so the shard's own drop (which flushes)
    /// runs here and a reopened store never meets a second live shard.
    fn drop(&mut self) {
        if let Some(Flusher { stop, thread }) = self.flusher.take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

#[async_trait]
impl VectorStore for EdgeStore {
    async fn upsert(&self, points: Vec<IndexedMemory>) -> Result<(), VectorError> {
        let points: Vec<_> = points.into_iter().map(to_point).collect();
        let op = PointOperations::UpsertPoints(PointInsertOperations::PointsList(points));
        self.write(UpdateOperation::PointOperation(op)).await
    }

    async fn delete(&self, ids: Vec<MemoryId>) -> Result<(), VectorError> {
        let ids = ids.into_iter().map(|id| PointId::Uuid(id.0)).collect();
        let op = PointOperations::DeletePoints { ids };
        self.write(UpdateOperation::PointOperation(op)).await
    }

    async fn search(&self, vector: Vec<f32>, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError> {
        let mut found = self.search_many(vector, vec![(filter, limit)]).await?;
        Ok(found.pop().unwrap_or_default())
    }

    async fn search_words(&self, words: Sparse, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError> {
        let Some(request) = words_request(words, &filter, limit) else {
            return Ok(Vec::new());
        };
        self.with_shard(Access::Quick, move |s| Ok(hits(s.search(request).map_err(err)?)))
            .await
    }

    /// All in one call, on the caller's thread: a recall's searches are
    /// filtered to one player (and lore) and take well under a millisecond,
    /// so trips to the blocking pool cost more than they did (live load at
    /// 800 matches: server CPU 2.17-2.35 -> 1.98-2.24 ms a move).
    async fn search_many(
        &self,
        vector: Vec<f32>,
        searches: Vec<(SearchFilter, usize)>,
    ) -> Result<Vec<Vec<Hit>>, VectorError> {
        let requests: Vec<Option<SearchRequest>> = searches
            .iter()
            .map(|(filter, limit)| search_request(&vector, filter, *limit))
            .collect();
        self.with_shard(Access::Quick, move |s| {
            let mut found = Vec::with_capacity(requests.len());
            for request in requests {
                found.push(match request {
                    Some(request) => hits(s.search(request).map_err(err)?),
                    None => Vec::new(),
                });
            }
            Ok(found)
        })
        .await
    }

    async fn count(&self) -> Result<u64, VectorError> {
        self.with_shard(Access::Search, |s| Ok(s.info().points_count as u64))
            .await
    }

    async fn set_recallable(&self, ids: Vec<MemoryId>, recallable: bool) -> Result<(), VectorError> {
        let payload = Payload(serde_json::Map::from_iter([(
            "recallable".to_string(),
            json!(recallable),
        )]));
        let points = Some(ids.into_iter().map(|id| PointId::Uuid(id.0)).collect());
        let op = PayloadOps::SetPayload(SetPayloadOp {
            payload,
            points,
            filter: None,
            key: None,
        });
        self.write(UpdateOperation::PayloadOperation(op)).await
    }

    async fn writable(&self) -> Result<(), VectorError> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || EdgeStore::probe(&path))
            .await
            .map_err(err)?
    }

    async fn states(&self) -> Result<Vec<(MemoryId, bool)>, VectorError> {
        self.with_shard(Access::Search, |s| {
            let (mut all, mut offset) = (Vec::new(), None);
            loop {
                let request = ScrollRequest {
                    offset,
                    limit: Some(STATES_PAGE),
                    with_payload: Some(WithPayloadInterface::Bool(true)),
                    ..ScrollRequest::default()
                };
                let (records, next) = s.scroll(request).map_err(err)?;
                all.extend(records.into_iter().filter_map(|r| {
                    let PointId::Uuid(u) = r.id else { return None };
                    let recallable = r.payload.as_ref().and_then(|p| p.0.get("recallable")?.as_bool());
                    Some((MemoryId(u), recallable.unwrap_or(true)))
                }));
                match next {
                    Some(n) => offset = Some(n),
                    None => return Ok(all),
                }
            }
        })
        .await
    }

    async fn vectors(&self, ids: Vec<MemoryId>) -> Result<HashMap<MemoryId, Vec<f32>>, VectorError> {
        self.with_shard(Access::Search, move |s| {
            let ids: Vec<PointId> = ids.iter().map(|id| PointId::Uuid(id.0)).collect();
            let records = s
                .retrieve(
                    &ids,
                    Some(WithPayloadInterface::Bool(false)),
                    Some(WithVector::Bool(true)),
                )
                .map_err(err)?;
            Ok(records
                .into_iter()
                .filter_map(|r| {
                    let PointId::Uuid(u) = r.id else { return None };
                    Some((MemoryId(u), dense(r.vector?)?))
                })
                .collect())
        })
        .await
    }

    async fn flush(&self) -> Result<(), VectorError> {
        let (path, shard, writer, dirty) = (
            self.path.clone(),
            self.shard.clone(),
            self.writer.clone(),
            self.dirty.clone(),
        );
        tokio::task::spawn_blocking(move || flush_if_dirty(&path, &shard, &writer, &dirty))
            .await
            .map_err(|e| err(format!("the flush task failed: {e}")))?
    }

    async fn maintain(&self) -> Result<(), VectorError> {
        // Writes and flushes wait (the writer mutex); searches go on.
        self.with_shard(Access::Write, |s| {
            s.optimize().map_err(err)?;
            s.flush();
            Ok(())
        })
        .await
    }
}
