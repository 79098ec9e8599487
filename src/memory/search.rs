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
        Ok(self.search_all(searches, Vec::new()).await?.by_meaning)
    }

    /// The searches by meaning as `search_by`, and each search by words
    /// (BM25), with one SQL read for all their rows: a recall at the board
    /// searches both, and a read costs more than the searches.
    pub async fn search_all(
        &self,
        searches: Vec<(String, Search)>,
        words: Vec<WordSearch>,
    ) -> Result<Found, MemoryError> {
        let by_meaning = self.meaning_hits(searches).await?;
        let mut by_words = Vec::with_capacity(words.len());
        for asked in words {
            let unrecallable = asked.filter.include_unrecallable;
            let hits = self
                .index()
                .search_words(lexical::query(&asked.text), asked.filter, asked.limit)
                .await?;
            by_words.push((hits, unrecallable));
        }
        let rows = self.rows_of(by_meaning.iter().chain(&by_words)).await?;
        let words = by_words
            .iter()
            .map(|found| {
                let mut found = merge(std::slice::from_ref(found), &rows);
                for r in &mut found {
                    r.similarity = 0.0;
                }
                found
            })
            .collect();
        Ok(Found {
            by_meaning: merge(&by_meaning, &rows),
            by_words: words,
        })
    }

    /// The index's hits for each search by meaning, and whether it takes
    /// memories that cannot be recalled.
    async fn meaning_hits(&self, searches: Vec<(String, Search)>) -> Result<Vec<(Vec<Hit>, bool)>, MemoryError> {
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

    /// `text`'s vector (from the embedder's memo: it was just searched by)
    /// and the vectors of `ids`, for a reader that weighs them itself.
    pub async fn vectors_with(
        &self,
        text: &str,
        ids: Vec<MemoryId>,
    ) -> Result<(Vec<f32>, HashMap<MemoryId, Vec<f32>>), MemoryError> {
        let query = self.embedder().embed_one(text).await?;
        let vectors = self.index().vectors(ids).await?;
        Ok((query, vectors))
    }

    /// One SQL read for every search's hits: searches find the same
    /// memories, and each row is read once.
    async fn rows_of(
        &self,
        searches: impl Iterator<Item = &(Vec<Hit>, bool)>,
    ) -> Result<HashMap<MemoryId, Memory>, MemoryError> {
        let mut ids: Vec<MemoryId> = searches.flat_map(|(hits, _)| hits.iter().map(|h| h.id)).collect();
        ids.sort_unstable();
        ids.dedup();
        let rows = self.db().memories_by_ids(&ids).await?;
        Ok(rows.into_iter().map(|m| (m.id, m)).collect())
    }
}

/// A search by a text's words (BM25) among `filter`'s memories.
#[derive(Debug, Clone)]
pub struct WordSearch {
    pub text: String,
    pub filter: SearchFilter,
    pub limit: usize,
}

/// What `search_all` found: by meaning, and by each search by words in
/// the order asked (`similarity` 0, `score` the BM25 score).
#[derive(Debug, Default)]
pub struct Found {
    pub by_meaning: Vec<Recalled>,
    pub by_words: Vec<Vec<Recalled>>,
}

/// The searches' hits with their rows, best first, each memory once at its
/// best score; a hit whose row is gone, or is not recallable unless its
/// search asked for those, is dropped.
fn merge(searches: &[(Vec<Hit>, bool)], rows: &HashMap<MemoryId, Memory>) -> Vec<Recalled> {
    let mut merged: Vec<Recalled> = Vec::new();
    for (hits, include_unrecallable) in searches {
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
                    relevance: None,
                }),
            }
        }
    }
    merged.sort_by(|a, b| b.score.total_cmp(&a.score));
    merged
}
