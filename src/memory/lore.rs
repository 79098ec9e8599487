//! The persona's lore as memories: each line of a persona file (or a
//! card's lorebook) kept in SQL and the index, made anew when its words,
//! keys or importance change.

use super::model::{CreatedBy, Memory, MemoryType};
use super::service::{MAX_CONTENT_CHARS, MemoryError, MemoryService};
use crate::ids::MemoryId;
use crate::personas::Persona;

// A persona's lore lines become memories: none may be longer than a memory.
const _: () = assert!(crate::personas::MAX_LORE_CHARS <= MAX_CONTENT_CHARS);

impl MemoryService {
    /// Makes the lore in SQL and the index match the persona files: a line
    /// whose words, keys or importance changed is made anew.
    pub async fn sync_lore(&self, personas: &[Persona]) -> Result<(), MemoryError> {
        for persona in personas {
            let stored = self.db().lore(&persona.id).await?;
            let wanted: Vec<Memory> = persona.lore.iter().map(|l| lore_memory(persona, l)).collect();
            let same = |a: &Memory, b: &Memory| {
                a.content == b.content && a.metadata == b.metadata && a.importance == b.importance
            };
            let stale: Vec<MemoryId> = stored
                .iter()
                .filter(|m| !wanted.iter().any(|w| same(m, w)))
                .map(|m| m.id)
                .collect();
            for id in &stale {
                self.db().delete_memory(*id).await?;
            }
            if !stale.is_empty() {
                self.index().delete(stale).await?;
            }
            let fresh: Vec<Memory> = wanted
                .into_iter()
                .filter(|w| !stored.iter().any(|m| same(m, w)))
                .collect();
            for m in &fresh {
                self.db().insert_memory(m).await?;
            }
            self.index_memories(&fresh).await?;
        }
        Ok(())
    }
}

/// A line of lore as a memory; its keys (the words that bring it up) in
/// its metadata, where recall by words finds them.
fn lore_memory(persona: &Persona, lore: &crate::personas::Lore) -> Memory {
    let metadata = match lore.keys.is_empty() {
        true => serde_json::json!({ "lore": true }),
        false => serde_json::json!({ "lore": true, "keys": lore.keys }),
    };
    let mut memory = Memory {
        metadata,
        importance: lore.importance,
        ..Memory::new(
            &persona.id,
            MemoryType::PersonalNote,
            &lore.text,
            CreatedBy::PersonaLore,
        )
    };
    memory.retag();
    memory
}
