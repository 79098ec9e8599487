//! The index as the memory service sees it: every call goes to the real
//! store (qdrant-edge or a Qdrant server), and a write that fails is noted,
//! because SQL committed it first. The run marker then stays, and the next
//! start checks the index against SQL (`runtime::RunMarker`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;

use super::lexical::Sparse;
use super::vector::{Hit, IndexedMemory, SearchFilter, VectorError, VectorStore};
use crate::ids::MemoryId;

pub struct Watched {
    inner: Arc<dyn VectorStore>,
    missed: Arc<AtomicBool>,
}

impl Watched {
    pub fn new(inner: Arc<dyn VectorStore>, missed: Arc<AtomicBool>) -> Watched {
        Watched { inner, missed }
    }

    fn noted<T>(&self, result: Result<T, VectorError>) -> Result<T, VectorError> {
        if let Err(e) = &result {
            tracing::warn!("a vector index write failed ({e}); the index is checked at the next start");
            self.missed.store(true, Ordering::Release);
        }
        result
    }
}

#[async_trait]
impl VectorStore for Watched {
    async fn upsert(&self, points: Vec<IndexedMemory>) -> Result<(), VectorError> {
        self.noted(self.inner.upsert(points).await)
    }

    async fn delete(&self, ids: Vec<MemoryId>) -> Result<(), VectorError> {
        self.noted(self.inner.delete(ids).await)
    }

    async fn set_recallable(&self, ids: Vec<MemoryId>, recallable: bool) -> Result<(), VectorError> {
        self.noted(self.inner.set_recallable(ids, recallable).await)
    }

    async fn flush(&self) -> Result<(), VectorError> {
        self.noted(self.inner.flush().await)
    }

    async fn search(&self, vector: Vec<f32>, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError> {
        self.inner.search(vector, filter, limit).await
    }

    async fn search_words(&self, words: Sparse, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError> {
        self.inner.search_words(words, filter, limit).await
    }

    async fn search_many(
        &self,
        vector: Vec<f32>,
        searches: Vec<(SearchFilter, usize)>,
    ) -> Result<Vec<Vec<Hit>>, VectorError> {
        self.inner.search_many(vector, searches).await
    }

    async fn count(&self) -> Result<u64, VectorError> {
        self.inner.count().await
    }

    async fn states(&self) -> Result<Vec<(MemoryId, bool)>, VectorError> {
        self.inner.states().await
    }

    async fn vectors(&self, ids: Vec<MemoryId>) -> Result<HashMap<MemoryId, Vec<f32>>, VectorError> {
        self.inner.vectors(ids).await
    }

    async fn writable(&self) -> Result<(), VectorError> {
        self.inner.writable().await
    }

    async fn maintain(&self) -> Result<(), VectorError> {
        self.inner.maintain().await
    }
}
