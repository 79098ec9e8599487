//! Backups a club can trust: `create` copies the SQL store while it serves
//! (SQLite's `VACUUM INTO`; PostgreSQL's `pg_dump` from an exported
//! snapshot) with the persona files and a manifest (version, migration
//! level, each table's row count and content digest, each file's SHA-256)
//! into one gzipped tar; `restore` puts one back into an empty data dir (or
//! an empty PostgreSQL database), checking every file against the manifest
//! first and every table's rows against its counts and digests after; opening it then migrates it if it is older
//! and rebuilds the vector index from SQL. The vector index is not in a
//! backup (it is made from SQL) unless a Qdrant snapshot is asked for:
//! then the restore uploads it, and the index comes back without
//! embedding every memory again.

mod archive;
mod manifest;
mod postgres;
mod qdrant;
mod schedule;

use std::path::{Path, PathBuf};

use chrono::Utc;

pub use manifest::{FileEntry, Manifest, QdrantSnapshot};
use qdrant::QdrantRest;
pub use schedule::{prune, scheduled};

use crate::config::Config;
use crate::memory::ModelRecord;
use crate::store::{Backend, Db, StoreCopy, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the backup is damaged: {0}")]
    Damaged(String),
    #[error("{0} is not installed (PostgreSQL's client tools: apt-get install postgresql-client)")]
    ToolMissing(String),
    #[error("{0}")]
    Tool(String),
    #[error("cannot restore: {0}")]
    Refused(String),
    #[error("the restored store does not match the backup: {0}")]
    Mismatch(String),
}

impl BackupError {
    fn io(path: &Path, source: std::io::Error) -> BackupError {
        BackupError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where the SQL copy sits inside a backup.
const SQLITE_FILE: &str = "sql/kibitz.db";
const POSTGRES_FILE: &str = "sql/kibitz.pgdump";
const PERSONAS: &str = "personas";
const QDRANT_FILE: &str = "qdrant/collection.snapshot";

/// A default name for a backup made now: `kibitz-backup-20261127T093000Z.tar.gz`.
pub fn default_name() -> String {
    format!("kibitz-backup-{}.tar.gz", Utc::now().format("%Y%m%dT%H%M%SZ"))
}

/// Writes a backup of `config`'s store and persona files to `out`, while
/// a server may be serving them; `qdrant_snapshot`: with the Qdrant
/// server's collection too.
pub async fn create(config: &Config, out: &Path, qdrant_snapshot: bool) -> Result<Manifest, BackupError> {
    let qdrant = match qdrant_snapshot {
        true => Some(QdrantRest::of(config)?),
        false => None,
    };
    let staging = tempfile::Builder::new()
        .prefix(".kibitz-backup-")
        .tempdir_in(
            out.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        )
        .map_err(|e| BackupError::io(out, e))?;
    let root = staging.path();
    std::fs::create_dir_all(root.join("sql")).map_err(|e| BackupError::io(root, e))?;
    // As it is: a backup does not migrate what it copies.
    let db = StoreCopy::open(&config.database_url).await?;
    let (store, sql_file, migration, tables) = match db.backend() {
        Backend::Sqlite => {
            db.sqlite_vacuum_into(&root.join(SQLITE_FILE)).await?;
            // Counted in the copy: what the backup holds, not what came since.
            let copy = StoreCopy::open(&format!("sqlite://{}", root.join(SQLITE_FILE).display())).await?;
            let found = (copy.migration_level().await?, copy.table_summaries().await?);
            copy.close().await;
            ("sqlite", SQLITE_FILE, found.0, found.1)
        }
        Backend::Postgres => {
            let url = config.database_url.clone();
            let target = root.join(POSTGRES_FILE);
            let snapshot = db.postgres_snapshot().await?;
            let dumped = postgres::dump(&url, &snapshot.id, &target).await;
            let tables = snapshot.release().await?;
            dumped?;
            ("postgres", POSTGRES_FILE, db.migration_level().await?, tables)
        }
    };
    db.close().await;
    let mut files = vec![FileEntry::of(root, sql_file)?];
    files.extend(copy_personas(&config.personas_dir, &root.join(PERSONAS))?);
    // After the SQL copy: a memory written between the two is missing from
    // the copy's rows, and the restore's check of the index removes it.
    let snapshot = match &qdrant {
        Some(q) => {
            std::fs::create_dir_all(root.join("qdrant")).map_err(|e| BackupError::io(root, e))?;
            q.snapshot_into(&root.join(QDRANT_FILE)).await?;
            files.push(FileEntry::of(root, QDRANT_FILE)?);
            Some(QdrantSnapshot {
                collection: q.collection.clone(),
                path: QDRANT_FILE.into(),
            })
        }
        None => None,
    };
    let mut manifest = Manifest {
        format: manifest::FORMAT,
        kibitz_version: env!("CARGO_PKG_VERSION").to_string(),
        created_at: Utc::now(),
        store: store.to_string(),
        migration,
        counts: Default::default(),
        digests: Default::default(),
        files,
        qdrant: snapshot,
    };
    manifest.set_tables(&tables);
    let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serialises");
    std::fs::write(root.join(manifest::NAME), json).map_err(|e| BackupError::io(root, e))?;
    archive::pack(root, out)?;
    Ok(manifest)
}

/// Every file of the personas folder (the persona files, and the images
/// of imported cards in their own folders), copied into `to`; hidden
/// entries (an import's staging) are left out.
fn copy_personas(from: &Path, to: &Path) -> Result<Vec<FileEntry>, BackupError> {
    let root = to.parent().expect("the personas folder is inside the staging folder");
    let mut entries = Vec::new();
    for relative in files_under(from, Path::new(""))? {
        let (source, target) = (from.join(&relative), to.join(&relative));
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| BackupError::io(dir, e))?;
        }
        std::fs::copy(&source, &target).map_err(|e| BackupError::io(&source, e))?;
        let inside = relative
            .iter()
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        entries.push(FileEntry::of(root, &format!("{PERSONAS}/{inside}"))?);
    }
    Ok(entries)
}

/// The files under `base/relative`, as paths relative to `base`, sorted.
fn files_under(base: &Path, relative: &Path) -> Result<Vec<PathBuf>, BackupError> {
    let dir = base.join(relative);
    let mut found = Vec::new();
    let mut listed: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| BackupError::io(&dir, e))?
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    listed.sort_by_key(|e| e.file_name());
    for entry in listed {
        let path = relative.join(entry.file_name());
        match entry.file_type() {
            Ok(t) if t.is_dir() => found.extend(files_under(base, &path)?),
            Ok(t) if t.is_file() => found.push(path),
            _ => {}
        }
    }
    Ok(found)
}

/// What a restore put back, before the store is opened.
#[derive(Debug)]
pub struct Restored {
    pub manifest: Manifest,
    pub personas_written: usize,
    /// The Qdrant collection made from the backup's snapshot, if any.
    pub qdrant_collection: Option<String>,
}

/// Restores `file` into `config`'s (empty) data dir or PostgreSQL
/// database and its persona files, and fails unless every table holds the
/// rows the manifest summarised. Opening the store next (`MemoryOnly`)
/// migrates an older one and builds the vector index from SQL.
pub async fn restore(config: &Config, file: &Path) -> Result<Restored, BackupError> {
    refuse_unless_empty(config).await?;
    let staging = tempfile::Builder::new()
        .prefix(".kibitz-restore-")
        .tempdir()
        .map_err(|e| BackupError::io(file, e))?;
    let root = staging.path();
    archive::unpack(file, root)?;
    let manifest = read_manifest(root)?;
    let backend = match manifest.store.as_str() {
        "sqlite" => Backend::Sqlite,
        _ => Backend::Postgres,
    };
    // An older store is migrated when it opens; a newer one this binary
    // cannot read.
    if manifest.migration > Db::latest_migration(backend) {
        return Err(BackupError::Refused(format!(
            "the backup's store is at migration {}, newer than this kibitz knows ({}): restore it with kibitz {} or later",
            manifest.migration,
            Db::latest_migration(backend),
            manifest.kibitz_version
        )));
    }
    let personas = personas_to_write(&manifest, root, &config.personas_dir)?;
    match manifest.store.as_str() {
        "sqlite" if config.database_url.starts_with("sqlite:") => {
            let target = sqlite_path(&config.database_url);
            if let Some(dir) = target.parent() {
                std::fs::create_dir_all(dir).map_err(|e| BackupError::io(dir, e))?;
            }
            std::fs::copy(root.join(SQLITE_FILE), &target).map_err(|e| BackupError::io(&target, e))?;
        }
        "postgres" if !config.database_url.starts_with("sqlite:") => {
            postgres::restore(&config.database_url, &root.join(POSTGRES_FILE)).await?;
        }
        store => {
            return Err(BackupError::Refused(format!(
                "the backup is of a {store} store and the configured database is not"
            )));
        }
    }
    // The store as it came back, before anything opens it (opening migrates
    // an older one and adds the personas' lore): every row the backup had.
    let copy = StoreCopy::open(&config.database_url).await?;
    let found = copy.table_summaries().await;
    let forgotten = match &found {
        Ok(tables) => copy.forget_nodes(tables).await,
        Err(_) => Ok(()),
    };
    copy.close().await;
    let differences = manifest.differences(&found?);
    if !differences.is_empty() {
        return Err(BackupError::Mismatch(differences.join("; ")));
    }
    forgotten?;
    let qdrant_collection = restore_qdrant(config, &manifest, root).await?;
    std::fs::create_dir_all(&config.personas_dir).map_err(|e| BackupError::io(&config.personas_dir, e))?;
    for entry in &personas {
        let name = entry.path.trim_start_matches(&format!("{PERSONAS}/")).to_string();
        let to = config.personas_dir.join(&name);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| BackupError::io(dir, e))?;
        }
        std::fs::copy(root.join(&entry.path), &to).map_err(|e| BackupError::io(&to, e))?;
    }
    Ok(Restored {
        manifest,
        personas_written: personas.len(),
        qdrant_collection,
    })
}

/// The backup's Qdrant snapshot uploaded into the configured (empty)
/// collection, with the record of the model that made its vectors (so
/// opening the store does not embed them again); None without one.
async fn restore_qdrant(config: &Config, manifest: &Manifest, root: &Path) -> Result<Option<String>, BackupError> {
    let (Some(snapshot), Some(_)) = (&manifest.qdrant, &config.qdrant_url) else {
        return Ok(None);
    };
    let qdrant = QdrantRest::of(config)?;
    qdrant.upload(&root.join(&snapshot.path)).await?;
    if !manifest.counts.contains_key("settings") {
        // Too old a store to hold the record: opening it embeds them again.
        return Ok(Some(qdrant.collection));
    }
    let copy = StoreCopy::open(&config.database_url).await?;
    let recorded = copy
        .copy_setting(
            &ModelRecord::collection_key(&snapshot.collection),
            &ModelRecord::collection_key(&qdrant.collection),
        )
        .await;
    copy.close().await;
    recorded?;
    Ok(Some(qdrant.collection))
}

/// A restore goes into nothing: an empty (or missing) data dir, and for
/// PostgreSQL an empty database.
async fn refuse_unless_empty(config: &Config) -> Result<(), BackupError> {
    let dir = &config.data_dir;
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
    {
        return Err(BackupError::Refused(format!(
            "the data dir {} is not empty (restore into a new one, then point the server at it)",
            dir.display()
        )));
    }
    if !config.database_url.starts_with("sqlite:") && !Db::has_no_tables(&config.database_url).await? {
        return Err(BackupError::Refused(
            "the PostgreSQL database already has tables (restore into a new, empty database)".into(),
        ));
    }
    // Checking the index against the restored rows would delete another
    // club's points.
    if config.qdrant_url.is_some() {
        let qdrant = QdrantRest::of(config)?;
        if let Some(points) = qdrant.points().await?.filter(|n| *n > 0) {
            return Err(BackupError::Refused(format!(
                "the Qdrant collection {} already has {points} points (restore into a new collection: qdrant_collection)",
                qdrant.collection
            )));
        }
    }
    Ok(())
}

fn read_manifest(root: &Path) -> Result<Manifest, BackupError> {
    let path = root.join(manifest::NAME);
    let text = std::fs::read(&path).map_err(|_| BackupError::Damaged("it has no manifest.json".into()))?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| BackupError::Damaged(format!("manifest.json: {e}")))?;
    if manifest.format != manifest::FORMAT {
        return Err(BackupError::Refused(format!(
            "backup format {} is not this version's ({})",
            manifest.format,
            manifest::FORMAT
        )));
    }
    for entry in &manifest.files {
        // A path out of the archive (or, restored, out of the personas
        // folder) is no backup of ours.
        let inside = Path::new(&entry.path)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(BackupError::Damaged(format!("manifest.json names {}", entry.path)));
        }
        entry.check(root)?;
    }
    Ok(manifest)
}

/// The persona files to write: those missing from the personas folder. A
/// file there that differs from the backup's stops the restore before it
/// has written anything.
fn personas_to_write(manifest: &Manifest, root: &Path, dir: &Path) -> Result<Vec<FileEntry>, BackupError> {
    let mut missing = Vec::new();
    for entry in manifest
        .files
        .iter()
        .filter(|f| f.path.starts_with(&format!("{PERSONAS}/")))
    {
        let here = dir.join(entry.path.trim_start_matches(&format!("{PERSONAS}/")));
        if !here.exists() {
            missing.push(entry.clone());
            continue;
        }
        let ours = std::fs::read(&here).map_err(|e| BackupError::io(&here, e))?;
        let theirs = std::fs::read(root.join(&entry.path)).map_err(|e| BackupError::io(root, e))?;
        if ours != theirs {
            return Err(BackupError::Refused(format!(
                "{} differs from the backup's copy (move it away to restore the backup's)",
                here.display()
            )));
        }
    }
    Ok(missing)
}

/// The file of a `sqlite://PATH` URL (options after `?` dropped).
fn sqlite_path(url: &str) -> PathBuf {
    let rest = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
    PathBuf::from(rest.split('?').next().unwrap_or(rest))
}
