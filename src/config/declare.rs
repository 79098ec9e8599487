//! Each setting is declared once, in its section's `section!` block: its
//! type, its default, its `KIBITZ_*` variable and its doc line. From that one
//! declaration come the struct the program reads, its defaults, the
//! environment's overrides with their sources, the keys a file may hold
//! (any other is an error that names the nearest), what `kibitz config`
//! prints and the table in docs/configuration.md.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use super::ConfigError;

/// Where a setting's value came from, later ones winning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
    Env(&'static str),
    Flag(&'static str),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(path) => write!(f, "file {}", path.display()),
            Source::Env(var) => write!(f, "env {var}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// Each setting's source, by key (`limits.registration`); unnamed: default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sources(BTreeMap<String, Source>);

impl Sources {
    pub fn set(&mut self, key: &str, source: Source) {
        self.0.insert(key.to_string(), source);
    }

    pub fn of(&self, key: &str) -> Source {
        self.0.get(key).cloned().unwrap_or(Source::Default)
    }
}

/// How a setting is reached and shown, besides its key and type.
#[derive(Debug, Clone, Copy, Default)]
pub struct Meta {
    /// Its `KIBITZ_*` variable.
    pub env: Option<&'static str>,
    /// Never printed: only whether it is set.
    pub secret: bool,
    /// Printed with the passwords and tokens in it hidden.
    pub url: bool,
    /// From the environment only: no file key.
    pub env_only: bool,
    /// The default in words, where it is worked out at start.
    pub shown: Option<&'static str>,
}

/// A setting with no variable of its own (or a section).
pub const NONE: Meta = Meta {
    env: None,
    secret: false,
    url: false,
    env_only: false,
    shown: None,
};

/// A setting its variable may override.
pub const fn env(var: &'static str) -> Meta {
    Meta { env: Some(var), ..NONE }
}

impl Meta {
    pub const fn secret(self) -> Meta {
        Meta { secret: true, ..self }
    }

    pub const fn url(self) -> Meta {
        Meta { url: true, ..self }
    }

    pub const fn env_only(self) -> Meta {
        Meta { env_only: true, ..self }
    }

    pub const fn shown(self, words: &'static str) -> Meta {
        Meta {
            shown: Some(words),
            ..self
        }
    }
}

/// One setting as `kibitz config` and the docs show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub key: String,
    pub meta_env: Option<&'static str>,
    /// From the environment only: no file key.
    pub env_only: bool,
    /// Its doc comment as one line.
    pub doc: String,
    /// Its value as printed: `unset`, or hidden for a secret.
    pub value: String,
    /// The default in words, where it is worked out at start.
    pub shown: Option<&'static str>,
}

pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A setting's value, or a section of them.
pub trait Field {
    /// Takes the value of its variable, if set, and notes the source.
    fn apply_env(&mut self, key: &str, meta: &Meta, env: Env, sources: &mut Sources) -> Result<(), ConfigError>;
    /// Its rows: one for a value, one per setting for a section.
    fn rows(&self, key: &str, meta: &Meta, doc: &str, out: &mut Vec<Row>);
    /// The keys a file may hold (a value's own; a section's settings').
    fn keys(key: &str, meta: &Meta, out: &mut Vec<String>);
}

/// `section.name`, or `name` at the top.
pub fn join(section: &str, name: &str) -> String {
    match section {
        "" => name.to_string(),
        _ => format!("{section}.{name}"),
    }
}

/// A doc comment as one line.
pub fn one_line(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A value as a file would hold it (strings bare); none: unset.
fn shown<T: serde::Serialize>(value: &T) -> Option<String> {
    match toml::Value::try_from(value).map(tidy) {
        Ok(toml::Value::String(s)) => Some(s),
        Ok(other) => Some(other.to_string()),
        Err(_) => None,
    }
}

/// Floats as they were written: an `f32` setting reaches TOML widened to
/// `f64` (0.2 as 0.20000000298023224), so a float that an `f32` holds
/// exactly is shown by its shortest `f32` form.
fn tidy(value: toml::Value) -> toml::Value {
    use toml::Value;
    match value {
        Value::Float(f) if f64::from(f as f32) == f => Value::Float((f as f32).to_string().parse().unwrap_or(f)),
        Value::Array(items) => Value::Array(items.into_iter().map(tidy).collect()),
        Value::Table(table) => Value::Table(table.into_iter().map(|(k, v)| (k, tidy(v))).collect()),
        other => other,
    }
}

/// A value's row, shown as `meta` says.
fn value_row<T: serde::Serialize>(value: &T, key: &str, meta: &Meta, doc: &str, out: &mut Vec<Row>) {
    let value = match (shown(value), meta.secret) {
        (Some(_), true) => "(set, not shown)".to_string(),
        (Some(text), false) if meta.url => super::redact::redact_url(&text),
        (Some(text), false) => text,
        (None, _) => "unset".to_string(),
    };
    out.push(Row {
        key: key.to_string(),
        meta_env: meta.env,
        env_only: meta.env_only,
        doc: one_line(doc),
        value,
        shown: meta.shown,
    });
}

/// A value read from its variable's text.
pub trait FromEnv: Sized {
    fn from_env(text: &str) -> Result<Self, String>;
}

macro_rules! parsed {
    ($($ty:ty),* $(,)?) => {
        $(impl FromEnv for $ty {
            fn from_env(text: &str) -> Result<Self, String> {
                text.parse().map_err(|e| format!("'{text}': {e}"))
            }
        })*
    };
}

parsed!(
    String,
    PathBuf,
    SocketAddr,
    bool,
    u32,
    u64,
    usize,
    f32,
    f64,
    super::Registration,
    super::TrustedProxies
);

impl<T: FromEnv> FromEnv for Option<T> {
    fn from_env(text: &str) -> Result<Self, String> {
        T::from_env(text).map(Some)
    }
}

/// Values a file writes as a table or a list: no variable sets them.
macro_rules! tables {
    ($($ty:ty),* $(,)?) => {
        $(impl FromEnv for $ty {
            fn from_env(_: &str) -> Result<Self, String> {
                Err("set it in the configuration file".into())
            }
        })*
    };
}

tables!(
    Vec<super::EndpointConfig>,
    super::RoleConfig,
    Vec<super::LichessAccount>,
    Vec<String>
);

/// The values a setting may hold: read from text, shown as a file has them.
macro_rules! values {
    ($($ty:ty),* $(,)?) => {
        $(impl Field for $ty {
            fn apply_env(&mut self, key: &str, meta: &Meta, env: Env, sources: &mut Sources) -> Result<(), ConfigError> {
                let Some(var) = meta.env else {
                    return Ok(());
                };
                if let Some(text) = env(var) {
                    *self = <$ty>::from_env(&text).map_err(|message| ConfigError::Env { var, message })?;
                    sources.set(key, Source::Env(var));
                }
                Ok(())
            }

            fn rows(&self, key: &str, meta: &Meta, doc: &str, out: &mut Vec<Row>) {
                value_row(self, key, meta, doc, out);
            }

            fn keys(key: &str, meta: &Meta, out: &mut Vec<String>) {
                if !meta.env_only {
                    out.push(key.to_string());
                }
            }
        })*
    };
}

values!(
    String,
    PathBuf,
    SocketAddr,
    bool,
    u32,
    u64,
    usize,
    f32,
    f64,
    super::Registration,
    super::TrustedProxies,
    Option<String>,
    Option<u32>,
    Vec<super::EndpointConfig>,
    super::RoleConfig,
    Vec<super::LichessAccount>,
    Vec<String>,
);

/// Declares a section of settings: the struct (serde: every key optional,
/// an unknown one refused), its `Default` and its `Field` impl. Each line:
/// doc comment, optional `#[serde(...)]`, `pub name: Type = default, meta;`.
macro_rules! section {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[serde($($fattr:tt)*)])*
                pub $field:ident: $ty:ty = $default:expr, $meta:expr;
            )*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                $(#[serde($($fattr)*)])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $($field: $default,)*
                }
            }
        }

        impl $crate::config::declare::Field for $name {
            fn apply_env(
                &mut self,
                key: &str,
                _: &$crate::config::declare::Meta,
                env: $crate::config::declare::Env,
                sources: &mut $crate::config::declare::Sources,
            ) -> Result<(), $crate::config::ConfigError> {
                use $crate::config::declare::join;
                $(self.$field.apply_env(&join(key, stringify!($field)), &$meta, env, sources)?;)*
                Ok(())
            }

            fn rows(&self, key: &str, _: &$crate::config::declare::Meta, _: &str, out: &mut Vec<$crate::config::declare::Row>) {
                use $crate::config::declare::join;
                $(self.$field.rows(&join(key, stringify!($field)), &$meta, concat!($($doc, "\n",)*), out);)*
            }

            fn keys(key: &str, _: &$crate::config::declare::Meta, out: &mut Vec<String>) {
                use $crate::config::declare::join;
                $(<$ty as $crate::config::declare::Field>::keys(&join(key, stringify!($field)), &$meta, out);)*
            }
        }
    };
}

pub(crate) use section;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_show_as_written() {
        assert_eq!(shown(&0.2_f32).as_deref(), Some("0.2"));
        assert_eq!(shown(&0.15_f32).as_deref(), Some("0.15"));
        assert_eq!(shown(&0.1_f64).as_deref(), Some("0.1"));
        assert_eq!(shown(&24.0_f64).as_deref(), Some("24.0"));
        let role = super::super::RoleConfig::new(0.7, 400);
        assert_eq!(shown(&role).as_deref(), Some("{ max_tokens = 400, temperature = 0.7 }"));
        assert_eq!(shown(&Option::<String>::None), None);
    }
}
