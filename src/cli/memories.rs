//! `kibitz memories`: review what the club remembers, from a terminal.
//! Opens the data dir directly (stop the server first: one process owns it).

use std::path::PathBuf;

use anyhow::{Context, bail};
use kibitz::config::Config;
use kibitz::ids::{MemoryId, PlayerId};
use kibitz::memory::MemoryQuery;
use kibitz::memory::{Memory, MemoryType, Scope};
use kibitz::runtime::MemoryOnly;
use kibitz::store::{Db, Player};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MemoriesArgs {
    #[command(subcommand)]
    command: Option<MemoriesCommand>,
    #[command(flatten)]
    list: ListArgs,
}

#[derive(clap::Args)]
struct ListArgs {
    /// Player id or name.
    #[arg(long)]
    player: Option<String>,
    /// Only memories held by this persona.
    #[arg(long)]
    persona: Option<String>,
    /// Only this type (player_behavior, player_observation, game_context, ...).
    #[arg(long = "type")]
    memory_type: Option<MemoryType>,
    /// Only pinned memories.
    #[arg(long)]
    pinned: bool,
    /// Include superseded memories.
    #[arg(long)]
    superseded: bool,
}

#[derive(clap::Subcommand)]
enum MemoriesCommand {
    /// List a player's memories, newest first (the default).
    List(ListArgs),
    /// Search a player's memories by meaning.
    Search {
        #[arg(long)]
        player: String,
        query: String,
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
    /// One memory with its provenance and every time it was recalled.
    Show {
        id: MemoryId,
    },
    /// Replace a memory's text (re-embeds it).
    Edit {
        id: MemoryId,
        content: String,
    },
    Pin {
        id: MemoryId,
    },
    Unpin {
        id: MemoryId,
    },
    /// Never bring this memory up again (it stays reviewable).
    Forget {
        id: MemoryId,
    },
    /// Undo `forget`.
    Allow {
        id: MemoryId,
    },
    /// Erase a memory everywhere.
    Delete {
        id: MemoryId,
    },
    /// Write all of a player's memories, with recalls, as JSON.
    Export {
        #[arg(long)]
        player: String,
        /// File to write (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Bring memories back from an export file (this installation's or
    /// another's) as a player's; each goes through the write policy
    /// (duplicates reinforce, contradictions supersede).
    Import {
        file: PathBuf,
        /// Player id or name: whose memories they become.
        #[arg(long)]
        player: String,
    },
    /// Rebuild the vector index from SQL.
    Reindex,
    /// Merge near-duplicates, supersede contradictions and apply decay now
    /// (the server does it on `memory.consolidate_cron` and after each match).
    Consolidate {
        /// Only this player's memories (default: everyone's changed since the last run).
        #[arg(long)]
        player: Option<String>,
    },
    /// The latest consolidation runs and what they did.
    Consolidations {
        #[arg(long, default_value_t = 10)]
        limit: i64,
    },
}

pub async fn run(config: &Config, args: MemoriesArgs) -> anyhow::Result<()> {
    let m = MemoryOnly::open(config).await.context("opening the memory store")?;
    match args.command.unwrap_or(MemoriesCommand::List(args.list)) {
        MemoriesCommand::List(l) => list(&m, l).await,
        MemoriesCommand::Search { player, query, limit } => {
            let player = find_player(&m.db, &player).await?;
            for r in m.memory.search_own(player.id, None, &query, limit).await? {
                println!("{:.3}  {}", r.score, line(&r.memory));
            }
            Ok(())
        }
        MemoriesCommand::Show { id } => show(&m, id).await,
        MemoriesCommand::Edit { id, content } => print_one(m.memory.edit(id, &content).await?),
        MemoriesCommand::Pin { id } => print_one(m.memory.set_flags(id, Some(true), None).await?),
        MemoriesCommand::Unpin { id } => print_one(m.memory.set_flags(id, Some(false), None).await?),
        MemoriesCommand::Forget { id } => print_one(m.memory.set_flags(id, None, Some(true)).await?),
        MemoriesCommand::Allow { id } => print_one(m.memory.set_flags(id, None, Some(false)).await?),
        MemoriesCommand::Delete { id } => {
            let memory = m.memory.get(id).await?.context("no such memory")?;
            m.memory.erase(&memory).await?;
            println!("erased {id}");
            Ok(())
        }
        MemoriesCommand::Export { player, out } => export(&m, &player, out).await,
        MemoriesCommand::Import { file, player } => import(config, &m, &file, &player).await,
        MemoriesCommand::Reindex => {
            let n = m
                .memory
                .reindex(|done, total| eprint!("\rre-indexing: {done}/{total}"))
                .await?;
            eprintln!("\nre-indexed {n} memories");
            Ok(())
        }
        MemoriesCommand::Consolidate { player } => {
            let scope = match player {
                Some(key) => Scope::Player(find_player(&m.db, &key).await?.id),
                None => Scope::Everyone,
            };
            let run = m.memory.consolidate(scope, "manual").await?;
            println!("{}", serde_json::to_string_pretty(&run)?);
            Ok(())
        }
        MemoriesCommand::Consolidations { limit } => {
            for run in m.db.consolidations(limit).await? {
                println!(
                    "{}  {:<11} merged {:>4}  superseded {:>4}  decayed {:>6}  player {}",
                    run.started_at.format("%Y-%m-%d %H:%M:%S"),
                    run.reason,
                    run.merged,
                    run.superseded,
                    run.decayed,
                    run.player_id.map(|p| p.to_string()).unwrap_or_else(|| "all".into())
                );
            }
            Ok(())
        }
    }
}

pub(super) async fn find_player(db: &Db, key: &str) -> anyhow::Result<Player> {
    let found = match key.parse::<PlayerId>() {
        Ok(id) => db.player(id).await?,
        Err(_) => db.player_by_name(key).await?,
    };
    found.with_context(|| format!("no player with id or name '{key}'"))
}

async fn list(m: &MemoryOnly, l: ListArgs) -> anyhow::Result<()> {
    let Some(key) = l.player else {
        bail!("give --player ID-or-NAME (see `kibitz memories --help`)")
    };
    let player = find_player(&m.db, &key).await?;
    let query = MemoryQuery {
        persona: l.persona.map(Into::into),
        memory_type: l.memory_type,
        pinned: l.pinned.then_some(true),
        include_superseded: l.superseded,
        ..MemoryQuery::default()
    };
    let memories = m.memory.list(player.id, &query).await?;
    let noun = if memories.len() == 1 { "memory" } else { "memories" };
    println!("{} {noun} about {} ({})", memories.len(), player.name, player.id);
    for memory in memories {
        println!("{}", line(&memory));
    }
    Ok(())
}

async fn show(m: &MemoryOnly, id: MemoryId) -> anyhow::Result<()> {
    let memory = m.memory.get(id).await?.context("no such memory")?;
    println!("{}", serde_json::to_string_pretty(&memory)?);
    for r in m.memory.recalls(id).await? {
        println!(
            "recalled {} in match {} on {} (score {:.3}): {}",
            r.recalled_at, r.match_id, r.trigger, r.score, r.reason
        );
    }
    Ok(())
}

async fn import(config: &Config, m: &MemoryOnly, file: &std::path::Path, player: &str) -> anyhow::Result<()> {
    let player = find_player(&m.db, player).await?;
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let personas: Vec<kibitz::ids::PersonaId> = kibitz::personas::load_dir(&config.personas_dir)?
        .into_iter()
        .map(|p| p.id)
        .collect();
    let source = file
        .file_name()
        .map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let r = m
        .memory
        .import(player.id, &bytes, &personas, &source)
        .await
        .with_context(|| format!("importing {}", file.display()))?;
    println!(
        "{} for {}: {} inserted, {} reinforced, {} superseded an older one, {} skipped",
        file.display(),
        player.name,
        r.inserted,
        r.reinforced,
        r.superseded,
        r.skipped.len()
    );
    for why in &r.skipped {
        println!("  skipped {why}");
    }
    Ok(())
}

async fn export(m: &MemoryOnly, player: &str, out: Option<PathBuf>) -> anyhow::Result<()> {
    let player = find_player(&m.db, player).await?;
    let text = serde_json::to_string_pretty(&m.memory.export(player.id).await?)?;
    match out {
        Some(path) => std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?,
        None => println!("{text}"),
    }
    Ok(())
}

fn print_one(memory: Memory) -> anyhow::Result<()> {
    println!("{}", line(&memory));
    Ok(())
}

fn line(m: &Memory) -> String {
    let flags = [
        (m.pinned, "pinned"),
        (m.never_recall, "never-recall"),
        (m.valid_to.is_some(), "superseded"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join(",");
    format!(
        "{}  {}  {:<8} {:<18} {:<14} {}",
        m.id,
        m.created_at.format("%Y-%m-%d %H:%M"),
        m.persona_id,
        m.memory_type.as_str(),
        flags,
        m.content
    )
}
