//! A backup's manifest: what made it, the migration level, row counts and
//! content digests of its SQL store's tables, and each file with its size
//! and SHA-256, so a restore can tell a backup whole and the store it
//! gives back the same, row for row.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::BackupError;
use crate::store::TableSummary;

/// The manifest's own format; a restore refuses one it does not know.
pub const FORMAT: u32 = 1;
/// Its name inside the archive.
pub const NAME: &str = "manifest.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub kibitz_version: String,
    pub created_at: DateTime<Utc>,
    /// "sqlite" or "postgres".
    pub store: String,
    /// The newest migration applied to the store when it was copied.
    pub migration: i64,
    /// Each table's rows in the copy.
    pub counts: BTreeMap<String, i64>,
    /// Each table's content digest (`TableSummary::digest`); backups made
    /// before digests were kept have none, and are checked by count.
    #[serde(default)]
    pub digests: BTreeMap<String, String>,
    pub files: Vec<FileEntry>,
    /// A snapshot of the Qdrant collection, when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdrant: Option<QdrantSnapshot>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QdrantSnapshot {
    /// The collection it was taken of.
    pub collection: String,
    /// Its file in the archive (also in `files`).
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the archive's root, with '/' between parts.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

impl FileEntry {
    /// The entry of the file at `root/path`.
    pub fn of(root: &Path, path: &str) -> Result<FileEntry, BackupError> {
        let full = root.join(path);
        let (bytes, sha256) = digest(&full).map_err(|e| BackupError::io(&full, e))?;
        Ok(FileEntry {
            path: path.to_string(),
            bytes,
            sha256,
        })
    }

    /// Whether the file at `root/path` is the one this entry describes.
    pub fn check(&self, root: &Path) -> Result<(), BackupError> {
        let full = root.join(&self.path);
        let (bytes, sha256) = digest(&full).map_err(|e| BackupError::io(&full, e))?;
        if bytes != self.bytes || sha256 != self.sha256 {
            return Err(BackupError::Damaged(format!(
                "{} is {bytes} bytes with SHA-256 {sha256}; the manifest says {} bytes, {}",
                self.path, self.bytes, self.sha256
            )));
        }
        Ok(())
    }
}

/// A file's size and SHA-256 (hex), read in blocks.
fn digest(path: &Path) -> std::io::Result<(u64, String)> {
    let mut file = std::fs::File::open(path)?;
    let (mut hasher, mut buf, mut bytes) = (Sha256::new(), vec![0u8; 1 << 16], 0u64);
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        bytes += n as u64;
    }
    Ok((bytes, hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()))
}

impl Manifest {
    /// The tables of a store as the backup found them.
    pub fn set_tables(&mut self, tables: &[TableSummary]) {
        self.counts = tables.iter().map(|t| (t.table.clone(), t.rows)).collect();
        self.digests = tables.iter().map(|t| (t.table.clone(), t.digest.clone())).collect();
    }

    /// How the tables a restore got differ from the backup's: a count, or
    /// (with the same count) the rows' contents.
    pub fn differences(&self, got: &[TableSummary]) -> Vec<String> {
        let got: BTreeMap<&str, &TableSummary> = got.iter().map(|t| (t.table.as_str(), t)).collect();
        self.counts
            .iter()
            .filter_map(|(table, n)| match got.get(table.as_str()) {
                None => Some(format!("{table}: missing, the backup had {n} rows")),
                Some(t) if t.rows != *n => Some(format!("{table}: {} rows, the backup had {n}", t.rows)),
                Some(t) if self.digests.get(table).is_some_and(|d| *d != t.digest) => Some(format!(
                    "{table}: {n} rows, but not the backup's (their digest differs)"
                )),
                Some(_) => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_fails_its_check() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "the record").unwrap();
        let entry = FileEntry::of(dir.path(), "a.txt").unwrap();
        assert_eq!(entry.bytes, 10);
        entry.check(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.txt"), "the recorD").unwrap();
        let err = entry.check(dir.path()).unwrap_err().to_string();
        assert!(err.contains("a.txt") && err.contains("SHA-256"), "{err}");
    }

    fn table(table: &str, rows: i64, digest: &str) -> TableSummary {
        TableSummary {
            table: table.into(),
            rows,
            digest: digest.into(),
        }
    }

    #[test]
    fn tables_that_differ_in_count_or_contents_are_named() {
        let mut manifest = Manifest {
            format: FORMAT,
            kibitz_version: "0".into(),
            created_at: Utc::now(),
            store: "sqlite".into(),
            migration: 1,
            counts: BTreeMap::new(),
            digests: BTreeMap::new(),
            files: vec![],
            qdrant: None,
        };
        manifest.set_tables(&[table("memories", 3, "ab"), table("players", 1, "cd")]);
        assert!(
            manifest
                .differences(&[table("memories", 3, "ab"), table("players", 1, "cd")])
                .is_empty()
        );
        assert_eq!(
            manifest.differences(&[table("memories", 2, "ab"), table("players", 1, "cd")]),
            ["memories: 2 rows, the backup had 3"]
        );
        assert_eq!(
            manifest.differences(&[table("memories", 3, "ab"), table("players", 1, "ce")]),
            ["players: 1 rows, but not the backup's (their digest differs)"]
        );
        assert_eq!(
            manifest.differences(&[table("memories", 3, "ab")]),
            ["players: missing, the backup had 1 rows"]
        );
        // A backup without digests is checked by count.
        manifest.digests.clear();
        assert!(
            manifest
                .differences(&[table("memories", 3, "x"), table("players", 1, "y")])
                .is_empty()
        );
    }
}
