//! What `kibitz bench live` is asked: the load, and the engine settings of
//! the server it starts (a server's own by default).

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct LiveArgs {
    /// Concurrent matches.
    #[arg(long, default_value_t = 100)]
    pub(super) matches: usize,
    /// How long the load runs, in seconds (after every match is open).
    #[arg(long, default_value_t = 60)]
    pub(super) seconds: u64,
    /// Seconds between one match's moves.
    #[arg(long, default_value_t = 2.0)]
    pub(super) move_every: f64,
    /// One turn in this many is a chat line instead of a move (0: never chat).
    #[arg(long, default_value_t = 5)]
    pub(super) chat_every: u32,
    /// A running server to load; without it one is started on a temp data dir.
    #[arg(long)]
    pub(super) url: Option<String>,
    /// The started server's cap on a persona move's search (with
    /// `--engine-nodes` 0, its whole time budget). The engine settings
    /// default to a server's own: the personas at their calibrated strength.
    #[arg(long, default_value_t = 17)]
    pub(super) engine_movetime_ms: u64,
    /// The started server's search budget in nodes (0: the time budget
    /// above); 500 makes the load the service rather than the engine.
    #[arg(long, default_value_t = 10_000)]
    pub(super) engine_nodes: u64,
    /// The started server's cheap odds evaluation, in nodes.
    #[arg(long, default_value_t = 20_000)]
    pub(super) eval_nodes: u64,
    /// The started server's deeper evaluation after each reply, in nodes
    /// (0: off), at the lowest priority.
    #[arg(long, default_value_t = 200_000)]
    pub(super) eval_deep_nodes: u64,
    /// Match creations a second tried by a flooding script during the load
    /// (a new player each, the persona moving first); with it the bench
    /// runs twice, without the flood and with it, and compares their p99.
    #[arg(long, default_value_t = 0.0)]
    pub(super) flood: f64,
    /// The started server's admission budget: new matches are refused as
    /// busy while a search waits longer than this for the engine (0: never).
    #[arg(long, default_value_t = kibitz::config::LimitsConfig::default().busy_engine_wait_ms)]
    pub(super) busy_engine_wait_ms: u64,
    /// ... and while the runtime's timers fire this late (0: never).
    #[arg(long, default_value_t = kibitz::config::LimitsConfig::default().busy_lag_ms)]
    pub(super) busy_lag_ms: u64,
    /// ... and while writes lately wait longer than this for their commit (p90; 0: never).
    #[arg(long, default_value_t = kibitz::config::LimitsConfig::default().busy_commit_wait_ms)]
    pub(super) busy_commit_wait_ms: u64,
    /// Nodes of one club to start on loopback (more than 1 needs
    /// `--database-url` and `--qdrant-url`); a player's WebSocket goes to
    /// another node than its requests in turn, as a balancer would send it.
    #[arg(long, default_value_t = 1)]
    pub(super) nodes: usize,
    /// A PostgreSQL admin URL (postgres://user@host/postgres): the started
    /// nodes get a fresh database there instead of SQLite files.
    #[arg(long)]
    pub(super) database_url: Option<String>,
    /// A Qdrant server (gRPC URL): the started nodes keep their memories
    /// there, in a fresh collection, instead of embedded indexes.
    #[arg(long)]
    pub(super) qdrant_url: Option<String>,
    #[arg(long, default_value = "bench/last-live.json")]
    pub(super) json: PathBuf,
}
