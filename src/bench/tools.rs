//! `kibitz bench tools`: the board tools against Lichess puzzles (data
//! nobody on the team wrote; `scripts/fetch-puzzles.sh` fetches them). For
//! each theme, the share of tagged puzzles whose theme the tools detect after
//! the puzzle's first move, and how often they claim it on untagged ones.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use kibitz::chess::puzzles::{parse_csv, score};
use kibitz::chess::tools::themes::Theme;
use serde_json::json;

/// Themes the issue asks about; those without a detector are reported as such.
const ASKED: [&str; 7] = [
    "fork",
    "pin",
    "skewer",
    "hangingPiece",
    "discoveredAttack",
    "mateIn1",
    "mateIn2",
];

pub fn run(path: &Path, out: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading {} (fetch it with scripts/fetch-puzzles.sh)", path.display()))?;
    let puzzles = parse_csv(&text);
    if puzzles.is_empty() {
        bail!("no puzzles in {}", path.display());
    }
    let started = Instant::now();
    let mut report = Vec::new();
    for tag in ASKED {
        let Some(theme) = Theme::DETECTED.into_iter().find(|t| t.tag() == tag) else {
            let tagged = puzzles.iter().filter(|p| p.themes.iter().any(|t| t == tag)).count();
            println!("{tag:<17} {tagged:>5} tagged   no detector yet");
            report.push(json!({ "theme": tag, "tagged": tagged, "detector": false }));
            continue;
        };
        let s = score(&puzzles, theme);
        println!(
            "{tag:<17} {:>5} tagged   detected {:.3}   also claimed on {:.3} of untagged",
            s.tagged, s.detected, s.claimed_untagged
        );
        report.push(serde_json::to_value(&s)?);
    }
    println!("{} puzzles in {:.1} s", puzzles.len(), started.elapsed().as_secs_f64());
    let json = json!({ "at": chrono::Utc::now(), "puzzles": puzzles.len(), "themes": report });
    crate::bench::write_figures(out, &json)?;
    Ok(())
}
