//! Effective configuration: defaults, then `kibitz.toml`, then `KIBITZ_*`
//! environment variables, then command-line flags (each later source wins).
//! Every setting is declared once, below and in the sections' files, with
//! its default, its variable and its doc line (`declare.rs`).

mod backup;
mod cluster;
pub mod declare;
mod lichess;
mod limits;
mod llm;
mod load;
mod memory;
mod recall;
pub mod redact;
mod show;

pub use backup::BackupConfig;
pub use cluster::ClusterConfig;
pub use declare::{Source, Sources};
pub use lichess::{ChallengePolicy, LichessAccount, LichessConfig};
pub use limits::{LimitsConfig, Registration, TrustedProxies};
pub use llm::{ApiKind, EndpointConfig, LlmConfig, RoleConfig};
pub use load::{DEFAULT_FILE, Loaded};
pub use memory::MemoryConfig;
pub use recall::RecallConfig;
pub use show::docs_table;

use std::net::SocketAddr;
use std::path::PathBuf;

use declare::{NONE, env, section};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("config file {path}: unknown key `{key}`{}", nearest.as_ref().map(|n| format!("; did you mean `{n}`?")).unwrap_or_default())]
    Unknown {
        path: PathBuf,
        key: String,
        nearest: Option<String>,
    },
    #[error("environment variable {var}: {message}")]
    Env { var: &'static str, message: String },
    #[error("config key {key}: {message}")]
    Invalid { key: &'static str, message: String },
}

section! {
    /// The whole configuration.
    pub struct Config {
        /// The address the server listens on (`kibitz serve --listen` beats it).
        pub listen: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 8080)), env("KIBITZ_LISTEN");
        /// How logs are written to stderr: "text", or "json" (one object a line, for a log shipper).
        pub log_format: String = "text".into(), env("KIBITZ_LOG_FORMAT");
        /// Where the SQLite file, the vector index and the run marker live.
        pub data_dir: PathBuf = "data".into(), env("KIBITZ_DATA_DIR");
        /// `sqlite://...` or `postgres://user:password@host/db`.
        #[serde(serialize_with = "redact::url")]
        pub database_url: String = String::new(), env("KIBITZ_DATABASE_URL").url().shown("sqlite://<data_dir>/kibitz.db");
        /// The embedded vector index (when no `qdrant_url`).
        pub vectors_dir: PathBuf = PathBuf::new(), env("KIBITZ_VECTORS_DIR").shown("<data_dir>/vectors");
        /// A Qdrant server (gRPC URL, e.g. http://qdrant:6334) instead of the
        /// embedded index in `vectors_dir`.
        #[serde(serialize_with = "redact::opt_url")]
        pub qdrant_url: Option<String> = None, env("KIBITZ_QDRANT_URL").url();
        /// The Qdrant server's REST address, for snapshots (`kibitz backup --qdrant-snapshot`).
        #[serde(serialize_with = "redact::opt_url")]
        pub qdrant_rest_url: Option<String> = None, env("KIBITZ_QDRANT_REST_URL").url().shown("qdrant_url's host, the port before");
        /// The Qdrant server's collection.
        pub qdrant_collection: String = "kibitz_memories".into(), env("KIBITZ_QDRANT_COLLECTION");
        /// The Qdrant server's API key, if it needs one. Never printed.
        #[serde(skip_serializing)]
        pub qdrant_api_key: Option<String> = None, env("KIBITZ_QDRANT_API_KEY").secret();
        /// The embedding model and ONNX Runtime (`make models`).
        pub models_dir: PathBuf = "models".into(), env("KIBITZ_MODELS_DIR");
        /// ONNX Runtime threads per embedding (0: half the cores, 1 to 4).
        pub embed_threads: usize = 0, env("KIBITZ_EMBED_THREADS").shown("half the cores, 1 to 4");
        /// The persona files.
        pub personas_dir: PathBuf = "personas".into(), env("KIBITZ_PERSONAS_DIR");
        /// The built web page (`make web` writes web/dist).
        pub web_dir: PathBuf = "web/dist".into(), env("KIBITZ_WEB_DIR");
        /// The Stockfish binary; the built-in engine plays if it is missing.
        pub stockfish_path: PathBuf = "/usr/games/stockfish".into(), env("KIBITZ_STOCKFISH");
        /// The most the engine may think per persona move; with
        /// `engine_nodes` 0, the whole budget (a time budget: a persona plays
        /// weaker the busier the server is).
        pub engine_movetime_ms: u64 = 17, env("KIBITZ_ENGINE_MOVETIME_MS");
        /// Nodes the engine searches per persona move (0: think for
        /// `engine_movetime_ms` instead): the strength the personas were
        /// calibrated at (10,000 within 17 ms), nearly the same however busy
        /// the server is (at 1,000 matches on 2 cores a quarter of the
        /// searches end at the cap, at 9,200 nodes on average).
        pub engine_nodes: u64 = 10_000, env("KIBITZ_ENGINE_NODES");
        /// Stockfish processes in the pool (matches share them).
        pub engine_workers: usize = 2, env("KIBITZ_ENGINE_WORKERS");
        /// Nodes per move evaluation (the odds); fixed, so the cost is predictable.
        pub eval_nodes: u64 = 20_000, env("KIBITZ_EVAL_NODES");
        /// Longest the odds may hold up a reply; past it the move has no odds.
        pub eval_budget_ms: u64 = 300, env("KIBITZ_EVAL_BUDGET_MS");
        /// Nodes for the deeper evaluation that revises each move's odds after
        /// the reply, on a separate engine process (0: no deeper evaluation).
        pub eval_deep_nodes: u64 = 200_000, env("KIBITZ_EVAL_DEEP_NODES");
        /// Multiplies every persona's idle delays (0.01 makes tests fast).
        pub idle_time_scale: f64 = 1.0, env("KIBITZ_IDLE_TIME_SCALE");
        /// Longest chat message accepted, in characters.
        pub max_chat_chars: usize = 1000, env("KIBITZ_MAX_CHAT_CHARS");
        /// A WebSocket is pinged this often; two pings unanswered close it.
        pub ws_ping_secs: f64 = 30.0, env("KIBITZ_WS_PING_SECS");
        /// Chat messages a match may send per minute (0: no limit).
        pub chat_per_minute: u32 = 20, env("KIBITZ_CHAT_PER_MINUTE");
        /// Memory edits and deletions a player may make per minute (0: no limit).
        pub memory_writes_per_minute: u32 = 30, env("KIBITZ_MEMORY_WRITES_PER_MINUTE");
        pub limits: LimitsConfig = LimitsConfig::default(), NONE;
        pub recall: RecallConfig = RecallConfig::default(), NONE;
        pub memory: MemoryConfig = MemoryConfig::default(), NONE;
        pub llm: LlmConfig = LlmConfig::default(), NONE;
        pub cluster: ClusterConfig = ClusterConfig::default(), NONE;
        pub backup: BackupConfig = BackupConfig::default(), NONE;
        pub lichess: LichessConfig = LichessConfig::default(), NONE;
        /// Bearer token that may read every player's memories. Never printed.
        #[serde(skip_serializing)]
        pub admin_token: Option<String> = None, env("KIBITZ_ADMIN_TOKEN").secret();
    }
}

impl Config {
    fn validate(self) -> Result<Config, ConfigError> {
        if self.limits.registration != Registration::Open && self.admin_token.is_none() {
            return Err(ConfigError::Invalid {
                key: "limits.registration",
                message: "invite and admin registration need an admin token (KIBITZ_ADMIN_TOKEN) to let anyone in"
                    .into(),
            });
        }
        let hours = self.limits.abandon_after_hours;
        if !(hours.is_finite() && hours >= 0.0) {
            return Err(ConfigError::Invalid {
                key: "limits.abandon_after_hours",
                message: format!("{hours}: use a number of hours, 0 for never"),
            });
        }
        if self.admin_token.as_ref().is_some_and(|t| t.len() < 16) {
            return Err(ConfigError::Env {
                var: "KIBITZ_ADMIN_TOKEN",
                message: "use at least 16 characters".into(),
            });
        }
        if !(self.idle_time_scale > 0.0 && self.idle_time_scale <= 100.0) {
            return Err(ConfigError::Env {
                var: "KIBITZ_IDLE_TIME_SCALE",
                message: format!("must be in (0, 100], got {}", self.idle_time_scale),
            });
        }
        let share = self.recall.chat_query_model_share;
        if !(0.0..=1.0).contains(&share) {
            return Err(ConfigError::Invalid {
                key: "recall.chat_query_model_share",
                message: format!("must be in [0, 1] (a share of one core; 1: no limit), got {share}"),
            });
        }
        for (key, ms) in [
            ("llm.words_deadline_ms", self.llm.words_deadline_ms),
            ("llm.chat_deadline_ms", self.llm.chat_deadline_ms),
        ] {
            if !(1..=600_000).contains(&ms) {
                let message = format!("must be 1 to 600000 ms, got {ms}");
                return Err(ConfigError::Invalid { key, message });
            }
        }
        if !["text", "json"].contains(&self.log_format.as_str()) {
            return Err(ConfigError::Invalid {
                key: "log_format",
                message: format!("{}: use text or json", self.log_format),
            });
        }
        self.memory.validate()?;
        self.backup.validate()?;
        self.lichess.validate()?;
        self.cluster.validate(&self.database_url, self.qdrant_url.as_deref())?;
        Ok(self)
    }

    /// The persona's search budget: nodes when set, else time.
    pub fn search_budget(&self) -> crate::chess::engine::SearchBudget {
        use crate::chess::engine::SearchBudget;
        match self.engine_nodes {
            0 => SearchBudget::Millis(self.engine_movetime_ms),
            nodes => SearchBudget::Nodes {
                nodes,
                within_ms: Some(self.engine_movetime_ms),
            },
        }
    }

    pub fn to_toml(&self) -> String {
        let mut text = toml::to_string_pretty(self).unwrap_or_else(|e| format!("# cannot print config: {e}"));
        if self.admin_token.is_some() {
            text.push_str("\n# admin_token is set (not shown)\n");
        }
        if self.cluster.secret.is_some() {
            text.push_str("# cluster secret is set (not shown)\n");
        }
        text
    }
}

#[cfg(test)]
mod tests;
