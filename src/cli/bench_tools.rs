//! `kibitz bench tools`: the board tools against Lichess puzzles (data
//! nobody on the team wrote; `scripts/fetch-puzzles.sh` fetches them). For
//! each theme, the share of tagged puzzles whose theme the tools detect after
//! the puzzle's first move, and how often they claim it on untagged ones.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use serde_json::json;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

use kibitz::chess::tools::themes::Theme;

/// Themes the issue asks about; those without a detector are reported as such.
const ASKED: [&str; 6] = ["fork", "pin", "hangingPiece", "discoveredAttack", "mateIn1", "mateIn2"];

struct Puzzle {
    /// The position after the opponent's first move: the solver to move.
    pos: Chess,
    themes: Vec<String>,
}

pub fn run(path: &Path, out: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading {} (fetch it with scripts/fetch-puzzles.sh)", path.display()))?;
    let puzzles: Vec<Puzzle> = text.lines().filter_map(parse).collect();
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
        let (mut tagged, mut found, mut untagged, mut false_alarms) = (0, 0, 0, 0);
        for p in &puzzles {
            let present = theme.present(&p.pos);
            if p.themes.iter().any(|t| t == tag) {
                tagged += 1;
                found += usize::from(present);
            } else {
                untagged += 1;
                false_alarms += usize::from(present);
            }
        }
        let share = found as f64 / tagged.max(1) as f64;
        let alarms = false_alarms as f64 / untagged.max(1) as f64;
        println!("{tag:<17} {tagged:>5} tagged   detected {share:.3}   also claimed on {alarms:.3} of untagged");
        report.push(json!({ "theme": tag, "tagged": tagged, "detected": share, "claimed_untagged": alarms }));
    }
    println!("{} puzzles in {:.1} s", puzzles.len(), started.elapsed().as_secs_f64());
    let json = json!({ "at": chrono::Utc::now(), "puzzles": puzzles.len(), "themes": report });
    std::fs::write(out, serde_json::to_string_pretty(&json)?).with_context(|| format!("writing {}", out.display()))?;
    println!("figures written to {}", out.display());
    Ok(())
}

/// One CSV row: id, FEN, moves (UCI, the first is the opponent's), rating, ..., themes.
fn parse(line: &str) -> Option<Puzzle> {
    let cols: Vec<&str> = line.split(',').collect();
    let (fen, moves, themes) = (cols.get(1)?, cols.get(2)?, cols.get(7)?);
    let mut pos: Chess = fen.parse::<Fen>().ok()?.into_position(CastlingMode::Standard).ok()?;
    let first: UciMove = moves.split_whitespace().next()?.parse().ok()?;
    let m = first.to_move(&pos).ok()?;
    pos.play_unchecked(m);
    Some(Puzzle {
        pos,
        themes: themes.split_whitespace().map(str::to_string).collect(),
    })
}
