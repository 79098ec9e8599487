//! The concepts a memory's meaning sits closest to, beside those its words
//! name (`concepts::memory_tags`): "she never tucks her king away" is about
//! a king left in the centre though no rule's words are in it. Each
//! concept's phrase is in the vocabulary pinned at start, so this costs a
//! few dot products, never a model run once the vocabulary is pinned. And
//! the tags of its subject, read from its meaning (`subject.rs`).

use super::MemoryError;
use super::concepts::CONCEPTS;
use super::model::{CreatedBy, Memory};
use super::service::MemoryService;
use super::subject::{LIKELY, Subject};
use super::vector::IndexedMemory;

/// At most this many concepts come by meaning alone.
const BY_MEANING: usize = 2;

impl MemoryService {
    /// Embeds a page of memories, tags each anew (tags follow the
    /// vocabulary: memories made before it, or before it grew), stores the
    /// tags that changed and indexes the page.
    pub(super) async fn retag_and_index(&self, page: &mut [Memory]) -> Result<(), MemoryError> {
        let texts = page.iter().map(|m| m.content.clone()).collect();
        let vectors = self.embedder().embed(texts).await?;
        let mut points = Vec::with_capacity(page.len());
        for (m, v) in page.iter_mut().zip(vectors) {
            let before = m.tags.clone();
            self.tag(m, &v).await?;
            if m.tags != before {
                self.db().set_memory_tags(m.id, &m.tags).await?;
            }
            points.push(IndexedMemory::new(m, v));
        }
        self.index().upsert(points).await?;
        Ok(())
    }

    /// Tags `memory` with its subject's tags (`subject.rs`), when the
    /// subject reader is ready and sure enough.
    fn tag_subject(&self, memory: &mut Memory, vector: &[f32]) {
        let Some(subjects) = self.subjects() else { return };
        let (subject, p) = subjects.read(&memory.content, vector);
        if p < LIKELY {
            return;
        }
        for tag in subject.tags() {
            if !memory.tags.iter().any(|t| t == tag) {
                memory.tags.push(tag.to_string());
            }
        }
        // A record counts draws ("7 wins, 2 losses and 1 draw"): it says
        // nothing of how they offer or take one.
        if subject == Subject::Record {
            memory.tags.retain(|t| t != "draw");
        }
    }

    /// Tags `memory` by its words, type and board, then by its meaning
    /// (`vector`, the memory's embedding).
    pub(super) async fn tag(&self, memory: &mut Memory, vector: &[f32]) -> Result<(), MemoryError> {
        memory.retag();
        if memory.created_by == CreatedBy::PersonaLore {
            return Ok(());
        }
        self.tag_subject(memory, vector);
        let min = self.config().concept_min_similarity;
        if min >= 1.0 {
            return Ok(());
        }
        let phrases = CONCEPTS.iter().map(|c| c.phrase.to_string()).collect();
        let vectors = self.embedder().embed_memoized(phrases).await?;
        let mut near: Vec<(f32, &str)> = CONCEPTS
            .iter()
            .zip(&vectors)
            .map(|(c, v)| (cosine(vector, v), c.tag))
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        tracing::trace!(memory = memory.content, nearest = ?&near[..3], "concepts by meaning");
        for (_, tag) in near.into_iter().take(BY_MEANING).filter(|(s, _)| *s >= min) {
            if !memory.tags.iter().any(|t| t == tag) {
                memory.tags.push(tag.to_string());
            }
        }
        Ok(())
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b)).max(f32::EPSILON)
}
