//! A backup's manifest: what made it, the migration level and row counts
//! of its SQL store, and each file with its size and SHA-256, so a restore
//! can tell a backup whole and the store it gives back complete.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::BackupError;

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
    pub files: Vec<FileEntry>,
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

/// The differences between the counts a restore got and the manifest's.
pub fn count_differences(expected: &BTreeMap<String, i64>, got: &[(String, i64)]) -> Vec<String> {
    let got: BTreeMap<&str, i64> = got.iter().map(|(t, n)| (t.as_str(), *n)).collect();
    expected
        .iter()
        .filter_map(|(table, n)| {
            let have = got.get(table.as_str()).copied();
            (have != Some(*n)).then(|| format!("{table}: {} rows, the backup had {n}", have.unwrap_or(-1)))
        })
        .collect()
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

    #[test]
    fn counts_that_differ_are_named() {
        let expected: BTreeMap<String, i64> = [("memories".to_string(), 3), ("players".to_string(), 1)].into();
        let same = vec![("memories".to_string(), 3), ("players".to_string(), 1)];
        assert!(count_differences(&expected, &same).is_empty());
        let fewer = vec![("memories".to_string(), 2), ("players".to_string(), 1)];
        assert_eq!(
            count_differences(&expected, &fewer),
            ["memories: 2 rows, the backup had 3"]
        );
    }
}
