//! Backups on the configured schedule: one more in `[backup] dir`, then
//! the oldest beyond `keep` deleted.

use std::path::{Path, PathBuf};

use super::{BackupError, create, default_name};
use crate::config::Config;

/// Makes one backup into the configured folder and prunes it; returns the
/// new file and those deleted.
pub async fn scheduled(config: &Config) -> Result<(PathBuf, Vec<PathBuf>), BackupError> {
    let dir = &config.backup.dir;
    std::fs::create_dir_all(dir).map_err(|e| BackupError::io(dir, e))?;
    let out = dir.join(default_name());
    create(config, &out, config.backup.qdrant_snapshot).await?;
    let pruned = prune(dir, config.backup.keep)?;
    Ok((out, pruned))
}

/// Deletes all but the newest `keep` backups in `dir` (by the time in
/// their names); other files are left alone.
pub fn prune(dir: &Path, keep: usize) -> Result<Vec<PathBuf>, BackupError> {
    let mut backups: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| BackupError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("kibitz-backup-") && n.ends_with(".tar.gz"))
        })
        .collect();
    backups.sort();
    let old = backups.len().saturating_sub(keep);
    let pruned: Vec<PathBuf> = backups.into_iter().take(old).collect();
    for path in &pruned {
        std::fs::remove_file(path).map_err(|e| BackupError::io(path, e))?;
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_backups_are_kept_and_nothing_else_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        for day in 1..=4 {
            std::fs::write(
                dir.path().join(format!("kibitz-backup-2026110{day}T040000Z.tar.gz")),
                "x",
            )
            .unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let pruned = prune(dir.path(), 2).unwrap();
        let names = |v: &[PathBuf]| -> Vec<String> {
            v.iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            names(&pruned),
            [
                "kibitz-backup-20261101T040000Z.tar.gz",
                "kibitz-backup-20261102T040000Z.tar.gz"
            ]
        );
        let mut left: Vec<PathBuf> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        left.sort();
        assert_eq!(
            names(&left),
            [
                "kibitz-backup-20261103T040000Z.tar.gz",
                "kibitz-backup-20261104T040000Z.tar.gz",
                "notes.txt"
            ]
        );
    }
}
