//! Effective configuration: defaults, then `kibitz.toml`, then `KIBITZ_*`
//! environment variables (each later source wins).

mod cluster;
mod limits;
mod llm;
mod recall;
pub mod redact;

pub use cluster::ClusterConfig;
pub use limits::{LimitsConfig, Registration};
pub use llm::{ApiKind, EndpointConfig, LlmConfig, RoleConfig};
pub use recall::RecallConfig;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("environment variable {var}: {message}")]
    Env { var: &'static str, message: String },
    #[error("config key {key}: {message}")]
    Invalid { key: &'static str, message: String },
}

/// What a new memory does to the ones already held, and how strength decays.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Cosine similarity at or above which a memory that agrees with an older
    /// one reinforces it instead of being added (tuned on bench/write_policy.json).
    pub duplicate_threshold: f32,
    /// Similarity at or above which opposite sentiment ("loves" / "hates") or
    /// different figures about the same thing supersede the older memory.
    pub contradiction_threshold: f32,
    /// How far a reinforcement moves strength towards 1.
    pub reinforce_gain: f32,
    /// Strength halves in this many days without reinforcement.
    pub half_life_days: f32,
    /// Pinned and important memories never decay below this strength.
    pub decay_floor: f32,
    /// Importance at or above which a memory is protected by the floor.
    pub high_importance: f32,
    /// When the consolidation job runs (6-field cron, UTC); it also runs after every match.
    pub consolidate_cron: String,
    /// A memory also takes the (at most two) concepts whose phrase its
    /// meaning is at least this close to (cosine); 1: by words only. On the
    /// recall set's 45 memories the right concept sits at 0.50-0.69 and
    /// wrong ones reach 0.53 ("castles queenside" -> promotion): 0.6 adds
    /// only right ones, a net under the rules for paraphrases.
    pub concept_min_similarity: f32,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            duplicate_threshold: 0.9,
            contradiction_threshold: 0.75,
            reinforce_gain: 0.5,
            half_life_days: 30.0,
            decay_floor: 0.5,
            high_importance: 0.8,
            consolidate_cron: "0 30 3 * * *".into(),
            concept_min_similarity: 0.6,
        }
    }
}

impl MemoryConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        let fractions = [
            ("memory.duplicate_threshold", self.duplicate_threshold),
            ("memory.contradiction_threshold", self.contradiction_threshold),
            ("memory.reinforce_gain", self.reinforce_gain),
            ("memory.decay_floor", self.decay_floor),
            ("memory.high_importance", self.high_importance),
        ];
        for (key, value) in fractions {
            if !(0.0..=1.0).contains(&value) {
                return Err(ConfigError::Invalid {
                    key,
                    message: format!("must be in [0, 1], got {value}"),
                });
            }
        }
        if self.half_life_days.is_nan() || self.half_life_days <= 0.0 {
            return Err(ConfigError::Invalid {
                key: "memory.half_life_days",
                message: format!("must be positive, got {}", self.half_life_days),
            });
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Config {
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
    #[serde(serialize_with = "redact::url")]
    pub database_url: String,
    pub vectors_dir: PathBuf,
    /// A Qdrant server (gRPC URL, e.g. http://qdrant:6334) instead of the
    /// embedded index in `vectors_dir`.
    #[serde(serialize_with = "redact::opt_url")]
    pub qdrant_url: Option<String>,
    pub qdrant_collection: String,
    /// Never printed.
    #[serde(skip_serializing)]
    pub qdrant_api_key: Option<String>,
    pub models_dir: PathBuf,
    /// ONNX Runtime threads per embedding (default: half the cores, 1 to 4).
    pub embed_threads: usize,
    pub personas_dir: PathBuf,
    /// The built web page (`make web` writes web/dist).
    pub web_dir: PathBuf,
    pub stockfish_path: PathBuf,
    /// Time the engine may think per persona move.
    pub engine_movetime_ms: u64,
    /// Nodes the engine searches per persona move instead (0: think for
    /// `engine_movetime_ms`): the same strength however busy the server is,
    /// `engine_movetime_ms` then being the most a move may take.
    pub engine_nodes: u64,
    /// Stockfish processes in the pool (matches share them).
    pub engine_workers: usize,
    /// Nodes per move evaluation (the odds); fixed, so the cost is predictable.
    pub eval_nodes: u64,
    /// Longest the odds may hold up a reply; past it the move has no odds.
    pub eval_budget_ms: u64,
    /// Nodes for the deeper evaluation that revises each move's odds after
    /// the reply, on a separate engine process (0: no deeper evaluation).
    pub eval_deep_nodes: u64,
    /// Multiplies every persona's idle delays (0.01 makes tests fast).
    pub idle_time_scale: f64,
    /// Longest chat message accepted, in characters.
    pub max_chat_chars: usize,
    /// A WebSocket is pinged this often; two pings unanswered close it.
    pub ws_ping_secs: f64,
    /// Chat messages a match may send per minute (0: no limit).
    pub chat_per_minute: u32,
    /// Memory edits and deletions a player may make per minute (0: no limit).
    pub memory_writes_per_minute: u32,
    pub limits: LimitsConfig,
    pub recall: RecallConfig,
    pub memory: MemoryConfig,
    pub llm: LlmConfig,
    pub cluster: ClusterConfig,
    /// Bearer token that may read every player's memories. Never printed.
    #[serde(skip_serializing)]
    pub admin_token: Option<String>,
}

/// The file form: every field optional, unknown fields rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    listen: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    vectors_dir: Option<PathBuf>,
    qdrant_url: Option<String>,
    qdrant_collection: Option<String>,
    qdrant_api_key: Option<String>,
    models_dir: Option<PathBuf>,
    embed_threads: Option<usize>,
    personas_dir: Option<PathBuf>,
    stockfish_path: Option<PathBuf>,
    web_dir: Option<PathBuf>,
    engine_movetime_ms: Option<u64>,
    engine_nodes: Option<u64>,
    engine_workers: Option<usize>,
    eval_nodes: Option<u64>,
    eval_budget_ms: Option<u64>,
    eval_deep_nodes: Option<u64>,
    idle_time_scale: Option<f64>,
    max_chat_chars: Option<usize>,
    ws_ping_secs: Option<f64>,
    chat_per_minute: Option<u32>,
    memory_writes_per_minute: Option<u32>,
    limits: Option<LimitsConfig>,
    recall: Option<RecallConfig>,
    memory: Option<MemoryConfig>,
    llm: Option<LlmConfig>,
    cluster: Option<ClusterConfig>,
    admin_token: Option<String>,
}

pub const DEFAULT_FILE: &str = "kibitz.toml";

impl Config {
    /// Loads `path` (or `./kibitz.toml` if it exists) and the environment.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let file = match path {
            Some(p) => Some(p.to_path_buf()),
            None => Some(PathBuf::from(DEFAULT_FILE)).filter(|p| p.exists()),
        };
        let file = match file {
            Some(p) => read_file(&p)?,
            None => FileConfig::default(),
        };
        Config::resolve(file, |k| std::env::var(k).ok())
    }

    /// Loads a TOML string and the given environment (used by tests).
    pub fn from_toml(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let file = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: PathBuf::from("<string>"),
            message: e.to_string(),
        })?;
        Config::resolve(file, env)
    }

    fn resolve(file: FileConfig, env: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let listen = parse_env(&env, "KIBITZ_LISTEN")?.or(file.listen);
        let data_dir = env("KIBITZ_DATA_DIR")
            .map(PathBuf::from)
            .or(file.data_dir)
            .unwrap_or_else(|| "data".into());
        let database_url = env("KIBITZ_DATABASE_URL")
            .or(file.database_url)
            .unwrap_or_else(|| format!("sqlite://{}", data_dir.join("kibitz.db").display()));
        let vectors_dir = env("KIBITZ_VECTORS_DIR").map(PathBuf::from).or(file.vectors_dir);
        let memory = file.memory.unwrap_or_default();
        let llm = file.llm.unwrap_or_default();
        Ok(Config {
            listen: listen.unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8080))),
            vectors_dir: vectors_dir.unwrap_or_else(|| data_dir.join("vectors")),
            qdrant_url: env("KIBITZ_QDRANT_URL").or(file.qdrant_url).filter(|u| !u.is_empty()),
            qdrant_collection: env("KIBITZ_QDRANT_COLLECTION")
                .or(file.qdrant_collection)
                .unwrap_or_else(|| "kibitz_memories".into()),
            qdrant_api_key: env("KIBITZ_QDRANT_API_KEY")
                .or(file.qdrant_api_key)
                .filter(|k| !k.is_empty()),
            models_dir: env("KIBITZ_MODELS_DIR")
                .map(PathBuf::from)
                .or(file.models_dir)
                .unwrap_or_else(|| "models".into()),
            embed_threads: parse_env(&env, "KIBITZ_EMBED_THREADS")?
                .or(file.embed_threads)
                .unwrap_or_else(crate::memory::embed::default_threads),
            personas_dir: env("KIBITZ_PERSONAS_DIR")
                .map(PathBuf::from)
                .or(file.personas_dir)
                .unwrap_or_else(|| "personas".into()),
            web_dir: env("KIBITZ_WEB_DIR")
                .map(PathBuf::from)
                .or(file.web_dir)
                .unwrap_or_else(|| "web/dist".into()),
            stockfish_path: env("KIBITZ_STOCKFISH")
                .map(PathBuf::from)
                .or(file.stockfish_path)
                .unwrap_or_else(|| "/usr/games/stockfish".into()),
            engine_movetime_ms: parse_env(&env, "KIBITZ_ENGINE_MOVETIME_MS")?
                .or(file.engine_movetime_ms)
                .unwrap_or(200),
            engine_nodes: parse_env(&env, "KIBITZ_ENGINE_NODES")?
                .or(file.engine_nodes)
                .unwrap_or(0),
            engine_workers: parse_env(&env, "KIBITZ_ENGINE_WORKERS")?
                .or(file.engine_workers)
                .unwrap_or(2),
            eval_nodes: parse_env(&env, "KIBITZ_EVAL_NODES")?
                .or(file.eval_nodes)
                .unwrap_or(20_000),
            eval_budget_ms: parse_env(&env, "KIBITZ_EVAL_BUDGET_MS")?
                .or(file.eval_budget_ms)
                .unwrap_or(300),
            eval_deep_nodes: parse_env(&env, "KIBITZ_EVAL_DEEP_NODES")?
                .or(file.eval_deep_nodes)
                .unwrap_or(200_000),
            idle_time_scale: parse_env(&env, "KIBITZ_IDLE_TIME_SCALE")?
                .or(file.idle_time_scale)
                .unwrap_or(1.0),
            max_chat_chars: parse_env(&env, "KIBITZ_MAX_CHAT_CHARS")?
                .or(file.max_chat_chars)
                .unwrap_or(1000),
            ws_ping_secs: parse_env(&env, "KIBITZ_WS_PING_SECS")?
                .or(file.ws_ping_secs)
                .filter(|s: &f64| *s > 0.0)
                .unwrap_or(30.0),
            chat_per_minute: parse_env(&env, "KIBITZ_CHAT_PER_MINUTE")?
                .or(file.chat_per_minute)
                .unwrap_or(20),
            memory_writes_per_minute: parse_env(&env, "KIBITZ_MEMORY_WRITES_PER_MINUTE")?
                .or(file.memory_writes_per_minute)
                .unwrap_or(30),
            limits: file.limits.unwrap_or_default().with_env(&env)?,
            recall: file.recall.unwrap_or_default(),
            memory: MemoryConfig {
                consolidate_cron: env("KIBITZ_CONSOLIDATE_CRON").unwrap_or(memory.consolidate_cron),
                ..memory
            },
            llm: {
                let mut llm = LlmConfig {
                    url: env("KIBITZ_LLM_URL").or(llm.url).filter(|u| !u.is_empty()),
                    model: env("KIBITZ_LLM_MODEL").unwrap_or(llm.model),
                    api_key: env("KIBITZ_LLM_API_KEY").filter(|k| !k.is_empty()),
                    detect_ollama: parse_env(&env, "KIBITZ_LLM_DETECT_OLLAMA")?.unwrap_or(llm.detect_ollama),
                    words_deadline_ms: parse_env(&env, "KIBITZ_LLM_WORDS_DEADLINE_MS")?
                        .unwrap_or(llm.words_deadline_ms),
                    chat_deadline_ms: parse_env(&env, "KIBITZ_LLM_CHAT_DEADLINE_MS")?.unwrap_or(llm.chat_deadline_ms),
                    model_recall: parse_env(&env, "KIBITZ_LLM_MODEL_RECALL")?.unwrap_or(llm.model_recall),
                    ..llm
                };
                if let Some(max) = parse_env(&env, "KIBITZ_LLM_MAX_TOKENS")? {
                    llm.cap_tokens(max);
                }
                llm
            },
            cluster: file.cluster.unwrap_or_default().with_env(&env)?,
            admin_token: env("KIBITZ_ADMIN_TOKEN").or(file.admin_token).filter(|t| !t.is_empty()),
            database_url,
            data_dir,
        })
        .and_then(Config::validate)
    }

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
        self.memory.validate()?;
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

fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.into(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.into(),
        message: e.to_string(),
    })
}

pub(crate) fn parse_env<T: std::str::FromStr>(
    env: &impl Fn(&str) -> Option<String>,
    var: &'static str,
) -> Result<Option<T>, ConfigError>
where
    T::Err: std::fmt::Display,
{
    env(var)
        .map(|v| {
            v.parse::<T>().map_err(|e| ConfigError::Env {
                var,
                message: format!("'{v}': {e}"),
            })
        })
        .transpose()
}

#[cfg(test)]
mod tests;
