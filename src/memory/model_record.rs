//! Which embedding model made the vector index. Vectors of two models do
//! not compare, so a start with another model embeds every memory again.
//! The record lives with the index: beside the embedded shard in the data
//! dir, or, for a Qdrant server's collection that several nodes share, in
//! SQL, where every node reads the same one.

use std::path::{Path, PathBuf};

use super::MemoryError;
use crate::store::Db;

pub enum ModelRecord {
    File(PathBuf),
    /// The settings key (one per collection).
    Sql(String),
}

impl ModelRecord {
    /// The record for a Qdrant collection.
    pub fn for_collection(collection: &str) -> ModelRecord {
        ModelRecord::Sql(Self::collection_key(collection))
    }

    /// The setting that records what made a Qdrant collection's vectors.
    pub fn collection_key(collection: &str) -> String {
        format!("index-model:qdrant:{collection}")
    }

    pub(super) async fn read(&self, db: &Db) -> Result<Option<String>, MemoryError> {
        Ok(match self {
            ModelRecord::File(path) => std::fs::read_to_string(path).ok().map(|t| t.trim().to_string()),
            ModelRecord::Sql(key) => db.setting(key).await?,
        })
    }

    pub(super) async fn write(&self, db: &Db, digest: &str) -> Result<(), MemoryError> {
        match self {
            ModelRecord::File(path) => {
                write_atomically(path, &format!("{digest}\n")).map_err(|source| MemoryError::Record {
                    path: path.to_path_buf(),
                    source,
                })
            }
            ModelRecord::Sql(key) => Ok(db.set_setting(key, digest).await?),
        }
    }
}

/// A crash leaves the old file or the new one, never half of one.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let partial = path.with_extension("partial");
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, path)
}
