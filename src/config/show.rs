//! What `kibitz config` prints: every setting with its value and where it
//! came from, or the reference table of docs/configuration.md, both from
//! the one declaration.

use super::declare::Row;
use super::{Config, Loaded};

impl Loaded {
    /// `key = value` per setting with its source; secrets hidden.
    pub fn listing(&self) -> String {
        let rows = self.config.rows();
        let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
        let mut out = String::new();
        for row in &rows {
            let source = self.sources.of(&row.key);
            out.push_str(&format!("{:width$} = {}  ({source})\n", row.key, row.value));
        }
        out
    }
}

/// The reference table: each setting's key, variable, default and meaning.
pub fn docs_table() -> String {
    let mut out = String::from("| key | variable | default | what |\n|---|---|---|---|\n");
    for row in Config::default().rows() {
        out.push_str(&docs_row(&row));
    }
    out
}

fn docs_row(row: &Row) -> String {
    let key = match row.env_only {
        true => format!("`{}` (environment only)", row.key),
        false => format!("`{}`", row.key),
    };
    let var = row.meta_env.map(|v| format!("`{v}`")).unwrap_or_default();
    let default = match (row.shown, row.value.as_str()) {
        (Some(words), _) => words.to_string(),
        (None, "") => "empty".to_string(),
        (None, "unset") => "unset".to_string(),
        (None, value) => format!("`{value}`"),
    };
    let what = row.doc.replace('|', "\\|");
    format!("| {key} | {var} | {default} | {what} |\n")
}
