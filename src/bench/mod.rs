//! The benchmarks behind `kibitz bench ...` (the command line only parses
//! their arguments, `cli/bench.rs`). Each prints its figures and writes them
//! as JSON (`bench/last-*.json`); none asserts: speed and quality goals are
//! read off these figures, never checked by timed tests.

pub mod chat;
pub mod concepts;
pub mod erasure;
pub mod live;
pub mod memory;
pub mod model_wait;
pub mod news;
pub mod odds;
mod policy;
pub mod prompt;
pub mod recall;
pub mod relevance;
pub mod review;
pub(crate) mod stats;
pub mod subjects;
mod synthetic;
pub mod tools;
pub mod topics;
pub mod trigger;

use std::path::Path;

use anyhow::Context;

/// Writes a benchmark's figures as pretty JSON (making its folder) and says where.
pub fn write_figures(out: &Path, report: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(out, serde_json::to_string_pretty(report)?).with_context(|| format!("writing {}", out.display()))?;
    println!("figures written to {}", out.display());
    Ok(())
}
