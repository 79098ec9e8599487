//! The `kibitz` command line. anyhow lives here only; the library has typed errors.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

mod bench;
mod cli;

use kibitz::config::Config;
use kibitz::embed;

#[derive(Parser)]
#[command(
    name = "kibitz",
    version,
    about = "A chess-club persona that plays you, chats with you, and remembers you."
)]
#[command(
    after_help = "Configuration: defaults, then ./kibitz.toml (or --config), then KIBITZ_* variables \
(KIBITZ_LISTEN, KIBITZ_DATA_DIR, KIBITZ_MODELS_DIR, KIBITZ_DATABASE_URL, KIBITZ_PERSONAS_DIR, KIBITZ_STOCKFISH, \
KIBITZ_IDLE_TIME_SCALE, KIBITZ_ENGINE_MOVETIME_MS, ...), then flags such as `serve --listen`. \
`kibitz config` prints each value and where it came from; `kibitz config --docs` lists every setting."
)]
struct Cli {
    /// Config file (default: ./kibitz.toml if present).
    #[arg(long, global = true, env = "KIBITZ_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP/WebSocket server.
    Serve {
        /// Address to listen on (overrides config and KIBITZ_LISTEN).
        #[arg(long)]
        listen: Option<std::net::SocketAddr>,
    },
    /// Play a game in this terminal, with chat, on the same runtime as the server.
    ///
    /// It opens this machine's data directly, so it is the operator's door:
    /// the club's registration mode and request limits (for clients over
    /// HTTP) do not apply; a player named here is created if new.
    Play(cli::play::PlayArgs),
    /// Play on Lichess as the personas' BOT accounts ([[lichess.accounts]]), without the web server.
    ///
    /// `kibitz serve` does the same beside the club when accounts are
    /// configured. Each account's token comes from the environment
    /// variable its `token_env` names; docs/lichess.md says how to make one.
    Lichess(cli::lichess::LichessArgs),
    /// Print the effective configuration: each setting, its value and its source.
    Config(ConfigArgs),
    /// The club's personas: list, import a character card, export one as a card.
    Personas(cli::personas::PersonasArgs),
    /// Review what the club remembers: list, search, show, edit, pin, forget, delete, export, reindex.
    Memories(cli::memories::MemoriesArgs),
    /// Benchmarks; figures are printed and written as JSON.
    Bench(cli::bench::BenchArgs),
    /// Check that the embedding model and ONNX Runtime are provisioned; train the chat listener if needed.
    Models,
    /// The personas' reflections after a player's matches.
    Reflections(cli::reflections::ReflectionsArgs),
    /// Players' ratings (Glicko-2): show one, or rebuild every history from the games.
    Ratings(cli::ratings::RatingsArgs),
    /// How well each persona knows a player: show it, or rebuild every history from the record.
    Familiarity(cli::familiarity::FamiliarityArgs),
    /// Two move brains play each other: results, latency, tokens, illegal moves, fallbacks.
    Selfplay(cli::selfplay::SelfplayArgs),
    /// Each persona against Stockfish at several Elo levels: its measured Elo ± 95% bar.
    Calibrate(cli::selfplay::CalibrateArgs),
    /// Back up the SQL store and persona files while the server runs (one .tar.gz with a manifest).
    ///
    /// SQLite is copied with VACUUM INTO, PostgreSQL with pg_dump from a
    /// snapshot; the vector index is left out (a restore rebuilds it).
    Backup(cli::backup::BackupArgs),
    /// Restore a backup into an empty data dir (and, for PostgreSQL, an empty database).
    ///
    /// Every file is checked against the manifest first; the store is
    /// migrated if the backup is older, the vector index rebuilt from SQL,
    /// and every table's rows compared with the manifest's counts.
    Restore(cli::backup::RestoreArgs),
}

#[derive(clap::Args)]
struct ConfigArgs {
    /// Print it as a configuration file instead (secrets left out).
    #[arg(long, conflicts_with = "docs")]
    toml: bool,
    /// Print the reference table of every setting (docs/configuration.md).
    #[arg(long)]
    docs: bool,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let mut loaded = Config::load_with_sources(cli.config.as_deref()).context("loading configuration")?;
    if let Command::Serve { listen: Some(addr) } = &cli.command {
        loaded.config.listen = *addr;
        loaded.sources.set("listen", kibitz::config::Source::Flag("--listen"));
    }
    let quiet = matches!(
        cli.command,
        Command::Play(_)
            | Command::Selfplay(_)
            | Command::Calibrate(_)
            | Command::Reflections(_)
            | Command::Ratings(_)
            | Command::Familiarity(_)
    );
    let level = if quiet {
        "warn,qdrant_edge=error"
    } else {
        "info,qdrant_edge=error,tokio_cron_scheduler=warn"
    };
    init_logging(level, loaded.config.log_format == "json");
    for warning in &loaded.warnings {
        tracing::warn!("{warning}");
    }
    if let Command::Config(args) = &cli.command {
        print!("{}", show_config(&loaded, args));
        return Ok(());
    }
    let config = loaded.config;
    select_onnx_runtime(&config);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        match cli.command {
            Command::Serve { .. } => cli::serve(config).await,
            Command::Play(args) => cli::play::run(config, args).await,
            Command::Lichess(args) => cli::lichess::run(config, args).await,
            Command::Config(_) => unreachable!("answered before the runtime starts"),
            Command::Personas(args) => cli::personas::run(&config, args),
            Command::Memories(args) => cli::memories::run(&config, args).await,
            Command::Bench(args) => cli::bench::run(&config, args).await,
            Command::Models => cli::models(&config).await,
            Command::Reflections(args) => cli::reflections::run(&config, args).await,
            Command::Ratings(args) => cli::ratings::run(&config, args).await,
            Command::Familiarity(args) => cli::familiarity::run(&config, args).await,
            Command::Selfplay(args) => cli::selfplay::selfplay(&config, args).await,
            Command::Calibrate(args) => cli::selfplay::calibrate(&config, args).await,
            Command::Backup(args) => cli::backup::backup(&config, args).await,
            Command::Restore(args) => cli::backup::restore(&config, args).await,
        }
    })
}

fn show_config(loaded: &kibitz::config::Loaded, args: &ConfigArgs) -> String {
    match (args.toml, args.docs) {
        (true, _) => loaded.config.to_toml(),
        (_, true) => kibitz::config::docs_table(),
        _ => loaded.listing(),
    }
}

/// fastembed loads ONNX Runtime from ORT_DYLIB_PATH; point it at the models
/// dir unless the user chose another library.
fn select_onnx_runtime(config: &Config) {
    if std::env::var_os("ORT_DYLIB_PATH").is_none() {
        let lib = std::path::absolute(embed::ort_library(&config.models_dir))
            .unwrap_or_else(|_| embed::ort_library(&config.models_dir));
        // SAFETY: called before the tokio runtime or any other thread exists.
        unsafe { std::env::set_var("ORT_DYLIB_PATH", lib) };
    }
}

/// Logs to stderr, as text, or (`log_format = "json"`) one JSON object a
/// line for an operator's log shipper (at the default levels no line
/// carries a memory's text, a chat line or a token; debug and trace do).
fn init_logging(default: &str, json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default.into());
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match json {
        true => logs.json().with_current_span(true).with_span_list(false).init(),
        false => logs.init(),
    }
}
