//! Reading the configuration: the file's keys checked against the declared
//! ones (an unknown key is an error naming the nearest), the file read into
//! the declared sections, the environment over it, each setting's source
//! noted, then the values worked out at start and the checks.

use std::path::{Path, PathBuf};

use super::declare::{Env, Field, NONE, Row, Source, Sources, join};
use super::{Config, ConfigError};

pub const DEFAULT_FILE: &str = "kibitz.toml";

/// `KIBITZ_*` variables that are not settings: the CLI's own, the scripts'
/// and the test suite's (`KIBITZ_TEST_*`).
const OTHER_VARIABLES: [&str; 9] = [
    "KIBITZ_CONFIG",
    "KIBITZ_CACHE",
    "KIBITZ_URL",
    "KIBITZ_SAID",
    "KIBITZ_INVITE",
    "KIBITZ_QDRANT_SRC",
    "KIBITZ_QDRANT_PORT",
    "KIBITZ_PG_PORT",
    "KIBITZ_PG_DIR",
];

/// The configuration, where each value came from, and what looked wrong
/// but is not fatal (a `KIBITZ_*` variable that names no setting).
#[derive(Debug)]
pub struct Loaded {
    pub config: Config,
    pub sources: Sources,
    pub warnings: Vec<String>,
}

impl Config {
    /// Loads `path` (or `./kibitz.toml` if it exists) and the environment.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        Ok(Config::load_with_sources(path)?.config)
    }

    /// `load`, with each value's source and the warnings.
    pub fn load_with_sources(path: Option<&Path>) -> Result<Loaded, ConfigError> {
        let file = match path {
            Some(p) => Some(p.to_path_buf()),
            None => Some(PathBuf::from(DEFAULT_FILE)).filter(|p| p.exists()),
        };
        let text = match &file {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|source| ConfigError::Read {
                path: p.clone(),
                source,
            })?),
            None => None,
        };
        let env = |k: &str| std::env::var(k).ok();
        let mut loaded = Config::resolve(text.as_deref(), file.as_deref(), &env)?;
        loaded.warnings = unknown_variables(std::env::vars().map(|(k, _)| k));
        Ok(loaded)
    }

    /// Loads a TOML string and the given environment (used by tests).
    pub fn from_toml(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        Ok(Config::resolve(Some(text), None, &env)?.config)
    }

    pub(super) fn resolve(text: Option<&str>, path: Option<&Path>, env: Env) -> Result<Loaded, ConfigError> {
        let path = path.map_or_else(|| PathBuf::from("<string>"), Path::to_path_buf);
        let parse_error = |e: toml::de::Error| ConfigError::Parse {
            path: path.clone(),
            message: e.to_string(),
        };
        let text = text.unwrap_or_default();
        let table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        let mut declared = Vec::new();
        Config::keys("", &NONE, &mut declared);
        check_keys(&table, "", &declared, &path)?;
        let mut sources = Sources::default();
        for key in declared.iter().filter(|k| lookup(&table, k).is_some()) {
            sources.set(key, Source::File(path.clone()));
        }
        let mut config: Config = toml::from_str(text).map_err(parse_error)?;
        config.apply_env("", &NONE, env, &mut sources)?;
        config.work_out();
        Ok(Loaded {
            config: config.validate()?,
            sources,
            warnings: Vec::new(),
        })
    }

    /// The values worked out at start, and the empty ones that mean unset.
    fn work_out(&mut self) {
        for text in [
            &mut self.qdrant_url,
            &mut self.qdrant_rest_url,
            &mut self.qdrant_api_key,
            &mut self.admin_token,
            &mut self.llm.url,
            &mut self.llm.api_key,
            &mut self.cluster.node_url,
            &mut self.cluster.node_id,
            &mut self.cluster.secret,
        ] {
            *text = text.take().filter(|t| !t.is_empty());
        }
        if let Some(url) = &mut self.cluster.node_url {
            *url = url.trim_end_matches('/').to_string();
        }
        if self.database_url.is_empty() {
            self.database_url = format!("sqlite://{}", self.data_dir.join("kibitz.db").display());
        }
        if self.vectors_dir.as_os_str().is_empty() {
            self.vectors_dir = self.data_dir.join("vectors");
        }
        if self.backup.dir.as_os_str().is_empty() {
            self.backup.dir = self.data_dir.join("backups");
        }
        if self.embed_threads == 0 {
            self.embed_threads = crate::embed::default_threads();
        }
        if self.ws_ping_secs.is_nan() || self.ws_ping_secs <= 0.0 {
            self.ws_ping_secs = 30.0;
        }
        self.llm.cap_tokens();
    }

    /// Every setting with its value as printed (secrets hidden).
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        Field::rows(self, "", &NONE, "", &mut rows);
        rows
    }
}

/// The value at a dotted key, if the file has it.
fn lookup<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let (first, rest) = match key.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (key, None),
    };
    match (table.get(first)?, rest) {
        (value, None) => Some(value),
        (toml::Value::Table(inner), Some(rest)) => lookup(inner, rest),
        _ => None,
    }
}

/// Every key of the file is a declared setting, or a section holding them.
fn check_keys(table: &toml::Table, prefix: &str, declared: &[String], path: &Path) -> Result<(), ConfigError> {
    for (name, value) in table {
        let key = join(prefix, name);
        if declared.contains(&key) {
            continue;
        }
        let section = format!("{key}.");
        match value {
            toml::Value::Table(inner) if declared.iter().any(|d| d.starts_with(&section)) => {
                check_keys(inner, &key, declared, path)?
            }
            _ => {
                return Err(ConfigError::Unknown {
                    path: path.to_path_buf(),
                    nearest: nearest(&key, declared.iter().map(String::as_str)),
                    key,
                });
            }
        }
    }
    Ok(())
}

/// `KIBITZ_*` variables that name no setting, each with the nearest that does.
pub(super) fn unknown_variables(vars: impl Iterator<Item = String>) -> Vec<String> {
    let rows = Config::default().rows();
    let settings: Vec<&str> = rows.iter().filter_map(|r| r.meta_env).collect();
    vars.filter(|v| v.starts_with("KIBITZ_") && !v.starts_with("KIBITZ_TEST_"))
        .filter(|v| !settings.contains(&v.as_str()) && !OTHER_VARIABLES.contains(&v.as_str()))
        .map(|v| match nearest(&v, settings.iter().copied()) {
            Some(near) => format!("{v} is not a kibitz setting and is ignored; did you mean {near}?"),
            None => format!("{v} is not a kibitz setting and is ignored (`kibitz config --docs` lists them)"),
        })
        .collect()
}

/// The candidate closest to `wrong` by edit distance, if it is close enough
/// to be a slip (a third of its length, at least two edits).
pub(super) fn nearest<'a>(wrong: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let wrong = wrong.to_ascii_lowercase();
    let most = (wrong.len() / 3).max(2);
    candidates
        .map(|c| (edits(&wrong, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}
