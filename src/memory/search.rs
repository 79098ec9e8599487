//! Searching the index and reading the rows: by meaning (one text or
//! several, each embedded once) and by words (BM25). SQL has the last word:
//! a hit whose row is gone is skipped, and one whose row is not recallable
//! (after a crash between SQL and index) is dropped unless the filter
//! asked for those.

use std::collections::HashMap;

use super::lexical;
use super::service::MemoryService;
use super::vector::{Hit, SearchFilter};
use super::{Memory, MemoryError, Recalled, Search};
use crate::ids::MemoryId;

impl MemoryService {
    /// Semantic search, best first; memories below `min_score` are dropped.
    pub async fn search(
        &self,
        query: &str,
        filter: SearchFilter,
        limit: usize,
        min_score: f32,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let search = Search {
            filter,
            limit,
            min_score,
        };
        self.search_each(query, vec![search]).await
    }

    /// Embeds `query` once and runs each search; results merged best first,
    /// each memory once.
    pub async fn search_each(&self, query: &str, searches: Vec<Search>) -> Result<Vec<Recalled>, MemoryError> {
        self.search_by(searches.into_iter().map(|s| (query.to_string(), s)).collect())
            .await
    }

    /// Each search by its own text's vector (each text embedded once, the
    /// searches sharing one in one call to the index); merged best first, a
    /// memory found by several keeping its best similarity.
    pub async fn search_by(&self, searches: Vec<(String, Search)>) -> Result<Vec<Recalled>, MemoryError> {
        let mut texts: Vec<&str> = Vec::new();
        for (text, _) in &searches {
            if !texts.contains(&text.as_str()) {
                texts.push(text);
            }
        }
        let mut found = Vec::with_capacity(searches.len());
        for text in texts {
            let vector = self.embedder().embed_one(text).await?;
            let group: Vec<&Search> = searches.iter().filter(|(t, _)| t == text).map(|(_, s)| s).collect();
            let asked = group.iter().map(|s| (s.filter.clone(), s.limit)).collect();
            let answers = self.index().search_many(vector, asked).await?;
            for (hits, s) in answers.into_iter().zip(group) {
                let kept = hits.into_iter().filter(|h| h.score >= s.min_score).collect();
                found.push((kept, s.filter.include_unrecallable));
            }
        }
        self.merge(found).await
    }

    /// BM25 over the memories' words, best first; `similarity` is 0 (not
    /// measured) and `score` the BM25 score.
    pub async fn search_words(
        &self,
        text: &str,
        filter: SearchFilter,
        limit: usize,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let unrecallable = filter.include_unrecallable;
        let hits = self.index().search_words(lexical::query(text), filter, limit).await?;
        let mut found = self.merge(vec![(hits, unrecallable)]).await?;
        for r in &mut found {
            r.similarity = 0.0;
        }
        Ok(found)
    }

    /// Measures the similarity to `text` of the memories found by words
    /// alone (`search_words` leaves it 0): one read of their vectors, and
    /// the text's own from the embedder's memo (it was just searched by).
    pub async fn measure_similarity(&self, text: &str, found: &mut [Recalled]) -> Result<(), MemoryError> {
        let unmeasured: Vec<MemoryId> = found
            .iter()
            .filter(|r| r.similarity == 0.0)
            .map(|r| r.memory.id)
            .collect();
        if unmeasured.is_empty() {
            return Ok(());
        }
        let query = self.embedder().embed_one(text).await?;
        let vectors = self.index().vectors(unmeasured).await?;
        for r in found.iter_mut() {
            if let Some(v) = vectors.get(&r.memory.id) {
                r.similarity = crate::embed::cosine(&query, v);
            }
        }
        Ok(())
    }

    /// One SQL read for every search's hits; each memory once, at its best score.
    async fn merge(&self, searches: Vec<(Vec<Hit>, bool)>) -> Result<Vec<Recalled>, MemoryError> {
        // Searches find the same memories: each row is read once.
        let mut ids: Vec<MemoryId> = searches
            .iter()
            .flat_map(|(hits, _)| hits.iter().map(|h| h.id))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let rows: HashMap<MemoryId, Memory> = self
            .db()
            .memories_by_ids(&ids)
            .await?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        let mut merged: Vec<Recalled> = Vec::new();
        for (hits, include_unrecallable) in &searches {
            for hit in hits {
                let Some(row) = rows.get(&hit.id) else { continue };
                if !(*include_unrecallable || row.recallable()) {
                    continue;
                }
                match merged.iter_mut().find(|m| m.memory.id == hit.id) {
                    Some(m) if hit.score > m.similarity => (m.similarity, m.score) = (hit.score, hit.score),
                    Some(_) => {}
                    None => merged.push(Recalled {
                        memory: row.clone(),
                        similarity: hit.score,
                        score: hit.score,
                        why: String::new(),
                    }),
                }
            }
        }
        merged.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(merged)
    }
}
