//! A player's memories brought back from an export (`MemoryService::export`,
//! this installation's or another's). The whole file is read and checked
//! first, so bad input writes nothing; then each memory goes through the
//! write policy like any other (a duplicate reinforces, a contradiction
//! supersedes) and keeps where it came from in its metadata.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};

use super::model::{CreatedBy, MemoryType, PositionTag};
use super::service::{MAX_CONTENT_CHARS, MemoryError, MemoryService, NewMemory};
use crate::ids::{MemoryId, PersonaId, PlayerId};

/// An export file may be at most this large.
pub const MAX_IMPORT_BYTES: usize = 5 * 1024 * 1024;
/// Memories one import may bring: each is embedded, searched against the
/// player's others and indexed.
pub const MAX_IMPORT_MEMORIES: usize = 500;
/// Memories a player may hold, imports included.
pub const MAX_PLAYER_MEMORIES: u64 = 10_000;
/// A memory's `metadata`, as JSON, at most.
pub const MAX_METADATA_BYTES: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("the file is {0} bytes; at most {MAX_IMPORT_BYTES} (5 MiB)")]
    TooLarge(usize),
    #[error("field `{field}`: {problem}")]
    Field { field: String, problem: String },
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

fn field(field: impl Into<String>, problem: impl Into<String>) -> ImportError {
    ImportError::Field {
        field: field.into(),
        problem: problem.into(),
    }
}

/// What an import did.
#[derive(Debug, Clone, Default, serde::Serialize, utoipa::ToSchema)]
pub struct ImportReport {
    pub inserted: usize,
    /// Memories the player already had, now stronger.
    pub reinforced: usize,
    /// Older memories the imported ones contradicted.
    pub superseded: usize,
    /// Memories left out, each with why (superseded in the export itself).
    pub skipped: Vec<String>,
}

#[derive(Deserialize)]
struct ExportFile {
    memories: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    memory: Exported,
}

/// The fields of an exported memory that make it again; the rest (recalls,
/// counts, strengths) belong to the installation it came from.
#[derive(Deserialize)]
struct Exported {
    #[serde(default)]
    id: Option<MemoryId>,
    #[serde(default)]
    player_id: Option<Value>,
    persona_id: PersonaId,
    memory_type: MemoryType,
    content: String,
    #[serde(default)]
    created_by: Option<String>,
    #[serde(default)]
    metadata: Value,
    #[serde(default)]
    created_at: Option<DateTime<Utc>>,
    #[serde(default = "half")]
    importance: f32,
    #[serde(default)]
    pinned: bool,
    #[serde(default)]
    never_recall: bool,
    #[serde(default)]
    valid_to: Option<DateTime<Utc>>,
    #[serde(default)]
    position: Option<PositionTag>,
}

fn half() -> f32 {
    0.5
}

/// A memory checked and ready to save, with its flags.
struct Ready {
    new: NewMemory,
    pinned: bool,
    never_recall: bool,
}

/// An export file read and checked, nothing written yet.
pub struct ReadImport {
    player: PlayerId,
    ready: Vec<Ready>,
    skipped: Vec<String>,
}

impl ReadImport {
    /// Reads `player`'s export file: `personas` are the ids that exist
    /// here; `source` names the file in each memory's provenance.
    pub fn read(player: PlayerId, bytes: &[u8], personas: &[PersonaId], source: &str) -> Result<Self, ImportError> {
        let (ready, skipped) = read(player, bytes, personas, source)?;
        Ok(ReadImport { player, ready, skipped })
    }

    /// How many memories it would write (each a memory write of the player's).
    pub fn writes(&self) -> usize {
        self.ready.len()
    }
}

impl MemoryService {
    /// Imports an export file's memories as `player`'s. `personas` are the
    /// ids that exist here; `source` names the file in each memory's
    /// provenance.
    pub async fn import(
        &self,
        player: PlayerId,
        bytes: &[u8],
        personas: &[PersonaId],
        source: &str,
    ) -> Result<ImportReport, ImportError> {
        self.import_read(ReadImport::read(player, bytes, personas, source)?)
            .await
    }

    /// Writes what `ReadImport::read` checked.
    pub async fn import_read(&self, read: ReadImport) -> Result<ImportReport, ImportError> {
        let ReadImport { player, ready, skipped } = read;
        let held = self.db().memory_count_of(player).await.map_err(MemoryError::from)?;
        if held + ready.len() as u64 > MAX_PLAYER_MEMORIES {
            let message = format!(
                "holds {} memories to import, and {held} are kept already: a player keeps at most {MAX_PLAYER_MEMORIES}",
                ready.len()
            );
            return Err(field("memories", message));
        }
        let mut report = ImportReport {
            skipped,
            ..ImportReport::default()
        };
        for r in ready {
            let saved = self.save(r.new).await?;
            match saved.outcome() {
                super::SaveOutcome::Reinforced => report.reinforced += 1,
                _ => report.inserted += 1,
            }
            report.superseded += saved.superseded.len();
            if !saved.reinforced && (r.pinned || r.never_recall) {
                let flags = (r.pinned.then_some(true), r.never_recall.then_some(true));
                self.set_flags(saved.memory.id, flags.0, flags.1).await?;
            }
        }
        Ok(report)
    }
}

/// Parses and checks every memory before anything is written.
fn read(
    player: PlayerId,
    bytes: &[u8],
    personas: &[PersonaId],
    source: &str,
) -> Result<(Vec<Ready>, Vec<String>), ImportError> {
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge(bytes.len()));
    }
    // serde reads a struct from an array too (`[[]]` as no memories):
    // an export is an object.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(field("", "must be a JSON object: a memory export with its `memories`"));
    }
    let file: ExportFile = serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(bytes))
        .map_err(|e| field(e.path().to_string(), e.into_inner().to_string()))?;
    if file.memories.len() > MAX_IMPORT_MEMORIES {
        let message = format!(
            "holds {} memories; at most {MAX_IMPORT_MEMORIES} in one import (split the file)",
            file.memories.len()
        );
        return Err(field("memories", message));
    }
    let now = Utc::now();
    let (mut ready, mut skipped) = (Vec::new(), Vec::new());
    for (i, Item { memory: m }) in file.memories.into_iter().enumerate() {
        let at = |f: &str| format!("memories[{i}].memory.{f}");
        if m.player_id.as_ref().is_none_or(Value::is_null) {
            return Err(field(
                at("player_id"),
                "is empty: that is a persona's lore, which comes only with its persona (a card)",
            ));
        }
        if !personas.contains(&m.persona_id) {
            let id: String = m.persona_id.chars().take(40).collect();
            return Err(field(at("persona_id"), format!("no persona '{id}' here")));
        }
        let content = m.content.trim().to_string();
        if content.is_empty() || content.chars().count() > MAX_CONTENT_CHARS {
            return Err(field(
                at("content"),
                format!("must be 1..={MAX_CONTENT_CHARS} characters"),
            ));
        }
        if let Some(why) = crate::personas::card::hostile(&content) {
            return Err(field(at("content"), why));
        }
        if !(0.0..=1.0).contains(&m.importance) {
            return Err(field(at("importance"), format!("{} is outside 0..=1", m.importance)));
        }
        if m.valid_to.is_some() {
            skipped.push(format!(
                "memories[{i}]: superseded in the export (\"{}\")",
                super::clipped(&content)
            ));
            continue;
        }
        if serde_json::to_string(&m.metadata).map_or(0, |s| s.len()) > MAX_METADATA_BYTES {
            return Err(field(
                at("metadata"),
                format!("is over {MAX_METADATA_BYTES} bytes as JSON"),
            ));
        }
        let mut metadata = match m.metadata {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let provenance = json!({ "at": now, "from": source, "original_id": m.id, "original_created_at": m.created_at });
        metadata.insert("imported".into(), provenance);
        let created_by = m.created_by.as_deref().and_then(CreatedBy::parse);
        ready.push(Ready {
            new: NewMemory {
                player_id: player,
                persona_id: m.persona_id,
                memory_type: m.memory_type,
                content,
                related_match_id: None,
                created_by: match created_by {
                    Some(CreatedBy::Subconscious) => CreatedBy::Subconscious,
                    _ => CreatedBy::MainAgent,
                },
                metadata: Value::Object(metadata),
                importance: m.importance,
                position: m.position,
            },
            pinned: m.pinned,
            never_recall: m.never_recall,
        });
    }
    Ok((ready, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn personas() -> Vec<PersonaId> {
        vec!["viktor".into()]
    }

    fn file(memory: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({ "player_id": "x", "memories": [{ "memory": memory, "recalls": [] }] })).unwrap()
    }

    fn fails_on(memory: Value) -> String {
        match read(PlayerId::new(), &file(memory), &personas(), "f.json") {
            Err(ImportError::Field { field, .. }) => field,
            Err(other) => panic!("expected a field error, got {other}"),
            Ok(_) => panic!("expected a field error, got none"),
        }
    }

    #[test]
    fn a_memory_keeps_where_it_came_from() {
        let m = json!({ "id": MemoryId::new(), "player_id": PlayerId::new(), "persona_id": "viktor", "memory_type": "personal_note",
                        "content": "Ann learned chess from her dad.", "importance": 0.7, "pinned": true, "metadata": { "subject": "family" } });
        let player = PlayerId::new();
        let (ready, skipped) = read(player, &file(m), &personas(), "ann.json").unwrap();
        assert!(skipped.is_empty());
        let r = &ready[0];
        assert_eq!((r.new.player_id, r.new.importance, r.pinned), (player, 0.7, true));
        assert_eq!(r.new.metadata["subject"], "family");
        assert_eq!(r.new.metadata["imported"]["from"], "ann.json");
    }

    #[test]
    fn bad_memories_name_their_field_and_lore_stays_out() {
        let ok = json!({ "player_id": "p", "persona_id": "viktor", "memory_type": "personal_note", "content": "Likes tea." });
        let with = |k: &str, v: Value| {
            let mut m = ok.clone();
            m[k] = v;
            m
        };
        assert_eq!(fails_on(with("player_id", Value::Null)), "memories[0].memory.player_id");
        assert_eq!(
            fails_on(with("persona_id", json!("nobody"))),
            "memories[0].memory.persona_id"
        );
        assert_eq!(
            fails_on(with("content", json!("<script>x</script>"))),
            "memories[0].memory.content"
        );
        assert_eq!(
            fails_on(with("content", json!("x".repeat(501)))),
            "memories[0].memory.content"
        );
        assert_eq!(
            fails_on(with("memory_type", json!("gossip"))),
            "memories[0].memory.memory_type"
        );
        assert_eq!(fails_on(with("importance", json!(3))), "memories[0].memory.importance");
        let superseded = with("valid_to", json!(Utc::now()));
        let (ready, skipped) = read(PlayerId::new(), &file(superseded), &personas(), "f").unwrap();
        assert_eq!((ready.len(), skipped.len()), (0, 1));
    }
}
