//! `[backup]`: backups made on a schedule while the server runs.

use std::path::PathBuf;

use super::ConfigError;
use super::declare::{env, section};

section! {
    /// Backups made on a schedule by the server (`kibitz backup` makes one at any time).
    pub struct BackupConfig {
        /// When to make one (6-field cron, UTC, e.g. "0 0 4 * * *"); empty: never.
        pub cron: String = String::new(), env("KIBITZ_BACKUP_CRON");
        /// Where they go. Default: `<data_dir>/backups`.
        pub dir: PathBuf = PathBuf::new(), env("KIBITZ_BACKUP_DIR").shown("<data_dir>/backups");
        /// How many of the newest are kept; older ones are deleted after each new one.
        pub keep: usize = 7, env("KIBITZ_BACKUP_KEEP");
        /// With a Qdrant server: a snapshot of its collection goes in too (a large index then comes back without embedding every memory again).
        pub qdrant_snapshot: bool = false, env("KIBITZ_BACKUP_QDRANT_SNAPSHOT");
    }
}

impl BackupConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.keep == 0 {
            return Err(ConfigError::Invalid {
                key: "backup.keep",
                message: "keep at least 1 (empty backup.cron turns scheduled backups off)".into(),
            });
        }
        Ok(())
    }
}
