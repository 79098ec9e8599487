//! A memory's tags on save, import, edit and reindex: those its words,
//! type and board give (`concepts::memory_tags`), then those its meaning
//! earns (`reading.rs`).

use super::MemoryError;
use super::model::{CreatedBy, Memory};
use super::reading::{Meaning, Readers, known_subject};
use super::service::MemoryService;
use super::vector::IndexedMemory;

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
            self.tag(m, &v);
            if m.tags != before {
                self.db().set_memory_tags(m.id, &m.tags).await?;
            }
            points.push(IndexedMemory::new(m, v));
        }
        self.index().upsert(points).await?;
        Ok(())
    }

    /// Tags `memory` by its words, type and board, then by its meaning
    /// (`vector`, the memory's embedding).
    pub(super) fn tag(&self, memory: &mut Memory, vector: &[f32]) {
        tag(self.readers(), memory, vector);
    }
}

/// Tags `memory` by its words, type and board, then by what the learned
/// `readers` (when trained) read in its meaning (`vector`, its embedding):
/// the one tagging for the store and for the corpora trained beside it.
pub fn tag(readers: Option<&Readers>, memory: &mut Memory, vector: &[f32]) {
    memory.retag();
    if memory.created_by == CreatedBy::PersonaLore {
        return;
    }
    let read = Meaning {
        readers,
        known: known_subject(memory.memory_type),
    };
    for tag in read.tags(&memory.content, vector) {
        if !memory.tags.contains(&tag) {
            memory.tags.push(tag);
        }
    }
    if read.is_record(&memory.content, vector) {
        memory.tags.retain(|t| t != "draw");
    }
}
