//! `kibitz backup` and `kibitz restore`: a consistent copy of the club's
//! SQL store and persona files while the server runs, and that copy put
//! back into an empty data dir, checked row for row.

use std::path::PathBuf;

use anyhow::Context;
use kibitz::backup::{self, Manifest};
use kibitz::config::Config;
use kibitz::runtime::MemoryOnly;

#[derive(clap::Args)]
pub struct BackupArgs {
    /// The backup file to write (a gzipped tar). Default:
    /// `<backup.dir>/kibitz-backup-<UTC time>.tar.gz`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// With a Qdrant server: put a snapshot of its collection in too, so a
    /// restore brings the index back without embedding every memory again
    /// (default: `backup.qdrant_snapshot`).
    #[arg(long)]
    qdrant_snapshot: bool,
}

#[derive(clap::Args)]
pub struct RestoreArgs {
    /// A file `kibitz backup` wrote.
    file: PathBuf,
}

pub async fn backup(config: &Config, args: BackupArgs) -> anyhow::Result<()> {
    let out = match args.out {
        Some(out) => out,
        None => {
            std::fs::create_dir_all(&config.backup.dir)
                .with_context(|| format!("creating {}", config.backup.dir.display()))?;
            config.backup.dir.join(backup::default_name())
        }
    };
    anyhow::ensure!(!out.exists(), "{} exists already: name another file", out.display());
    let started = std::time::Instant::now();
    eprintln!("backup: copying the {} store ...", store_name(config));
    let with_qdrant = args.qdrant_snapshot || config.backup.qdrant_snapshot;
    let manifest = backup::create(config, &out, with_qdrant).await?;
    let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!(
        "backup: {} ({:.1} MB, {:.1} s)",
        out.display(),
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    print_manifest(&manifest);
    Ok(())
}

pub async fn restore(config: &Config, args: RestoreArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.file.is_file(), "{} is not a file", args.file.display());
    let started = std::time::Instant::now();
    eprintln!("restore: checking {} against its manifest ...", args.file.display());
    let restored = backup::restore(config, &args.file).await?;
    eprintln!(
        "restore: {} store (every table's rows as the manifest counts) and {} persona file(s) in place; migrating and indexing the memories ...",
        restored.manifest.store, restored.personas_written
    );
    let opened = MemoryOnly::open(config).await.context("opening the restored data")?;
    let (_, indexed) = opened.memory.counts().await?;
    opened.marker.release();
    println!(
        "restore: done in {:.1} s into {}; every table holds the backup's rows, row for row; {indexed} memories indexed",
        started.elapsed().as_secs_f64(),
        config.data_dir.display()
    );
    if let Some(collection) = &restored.qdrant_collection {
        println!("  the Qdrant collection {collection} was made from the backup's snapshot");
    }
    print_manifest(&restored.manifest);
    Ok(())
}

fn print_manifest(m: &Manifest) {
    println!(
        "  made {} by kibitz {}, {} store at migration {}",
        m.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
        m.kibitz_version,
        m.store,
        m.migration
    );
    let shown = [
        "players",
        "matches",
        "moves",
        "memories",
        "reflections",
        "persona_cards",
    ];
    let counts: Vec<String> = shown
        .iter()
        .filter_map(|t| m.counts.get(*t).map(|n| format!("{t} {n}")))
        .collect();
    println!("  {}", counts.join(", "));
    println!("  {} file(s), each with its SHA-256 in manifest.json", m.files.len());
    if let Some(q) = &m.qdrant {
        println!("  a snapshot of the Qdrant collection {}", q.collection);
    }
}

fn store_name(config: &Config) -> &'static str {
    if config.database_url.starts_with("sqlite:") {
        "SQLite"
    } else {
        "PostgreSQL"
    }
}
