//! PostgreSQL's own tools for its data: `pg_dump` (custom format, from an
//! exported snapshot) and `pg_restore`, found on the PATH or where
//! Debian's packages put them. The database URL goes to them as their
//! `--dbname` and is never printed.

use std::path::{Path, PathBuf};

use super::BackupError;

/// The tool's path: on the PATH, else the newest of Debian's
/// `/usr/lib/postgresql/<major>/bin`.
fn tool(name: &str) -> Result<PathBuf, BackupError> {
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|d| d.join(name)).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| {
            dirs.filter_map(|d| d.ok())
                .map(|d| d.path().join("bin").join(name))
                .collect()
        })
        .unwrap_or_default();
    debian.sort_by_key(|p| std::cmp::Reverse(major(p)));
    on_path
        .into_iter()
        .chain(debian)
        .find(|p| p.is_file())
        .ok_or_else(|| BackupError::ToolMissing(name.to_string()))
}

fn major(bin: &Path) -> u32 {
    bin.ancestors()
        .nth(2)
        .and_then(|d| d.file_name()?.to_str()?.parse().ok())
        .unwrap_or(0)
}

/// `pg_dump` of the snapshot into `out`.
pub async fn dump(url: &str, snapshot: &str, out: &Path) -> Result<(), BackupError> {
    let mut cmd = tokio::process::Command::new(tool("pg_dump")?);
    cmd.arg("--format=custom")
        .arg("--no-owner")
        .arg(format!("--snapshot={snapshot}"))
        .arg(format!("--file={}", out.display()))
        .arg(format!("--dbname={url}"));
    run(cmd, "pg_dump", url).await
}

/// `pg_restore` of `dump` into the (empty) database.
pub async fn restore(url: &str, dump: &Path) -> Result<(), BackupError> {
    let mut cmd = tokio::process::Command::new(tool("pg_restore")?);
    cmd.arg("--no-owner")
        .arg("--no-privileges")
        .arg("--exit-on-error")
        .arg(format!("--dbname={url}"))
        .arg(dump);
    run(cmd, "pg_restore", url).await
}

async fn run(mut cmd: tokio::process::Command, name: &str, url: &str) -> Result<(), BackupError> {
    let out = cmd
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| BackupError::Tool(format!("{name} did not start: {e}")))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(BackupError::Tool(format!(
            "{name} failed ({}): {}",
            out.status,
            said.trim().replace(url, &crate::config::redact::redact_url(url))
        )));
    }
    Ok(())
}
