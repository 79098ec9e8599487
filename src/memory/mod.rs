//! Vector memory: what a persona remembers about a player (and its own
//! lore), stored in SQL and indexed by meaning. Knows nothing of HTTP.

mod concept_reader;
pub mod concepts;
mod consolidate;
mod consolidation_rows;
pub mod dated;
pub mod edge;
mod import;
pub mod lexical;
mod lore;
mod memory_type;
pub mod model;
mod model_record;
pub mod policy;
pub mod qdrant;
pub mod reading;
mod review;
mod rows;
mod search;
mod service;
pub mod strength;
pub mod subject;
pub mod tagging;
pub mod vector;
pub mod watched;

pub use consolidate::Scope;
pub use consolidation_rows::ConsolidationRow;
pub use import::{ImportError, ImportReport, MAX_IMPORT_BYTES, ReadImport};
pub use model::{
    CreatedBy, Memory, MemoryType, PositionTag, RecallRecord, Recalled, Reinforcement, clipped, key_tag, key_tags_in,
};
pub use model_record::ModelRecord;
pub use review::recall_entries;
pub use rows::MemoryQuery;
pub use search::{Found, WordSearch};
pub use service::{MAX_CONTENT_CHARS, MemoryError, MemoryService, NewMemory, Reconciled, SaveOutcome, Saved, Search};
