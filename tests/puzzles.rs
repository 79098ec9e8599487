//! The board tools against data nobody on the team wrote: 10,000 Lichess
//! puzzles (CC0) that the test set-up fetches from the PyPI sdist of
//! atlas-chess (`scripts/fetch-puzzles.sh`, run by `make test`). For each
//! theme the issue names, the share of tagged puzzles whose theme the tools
//! detect after the first move must reach its target. `kibitz bench tools`
//! prints the same figures with the false-claim rates.

use std::path::PathBuf;
use std::process::Command;

use kibitz::chess::puzzles::{parse_csv, score};
use kibitz::chess::tools::themes::Theme;

fn puzzles_csv() -> PathBuf {
    let repo =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()));
    let csv = repo.join("bench/data/lichess_db_puzzle.csv");
    if !csv.exists() {
        let fetched = Command::new(repo.join("scripts/fetch-puzzles.sh"))
            .arg(repo.join("bench/data"))
            .status()
            .expect("scripts/fetch-puzzles.sh runs");
        assert!(fetched.success(), "fetching the puzzles failed");
    }
    csv
}

#[test]
fn theme_detection_meets_its_targets_on_lichess_puzzles() {
    let text = std::fs::read_to_string(puzzles_csv()).unwrap();
    let puzzles = parse_csv(&text);
    assert!(puzzles.len() >= 9_000, "{} puzzles parsed", puzzles.len());
    let targets = [
        (Theme::MateIn1, 0.90),
        (Theme::HangingPiece, 0.90),
        (Theme::Fork, 0.70),
        (Theme::Pin, 0.70),
        (Theme::DiscoveredAttack, 0.70),
        (Theme::MateIn2, 0.70),
    ];
    let mut misses = Vec::new();
    for (theme, target) in targets {
        let s = score(&puzzles, theme);
        println!(
            "{:<17} {:>5} tagged, detected {:.3} (target {target})",
            s.theme, s.tagged, s.detected
        );
        assert!(s.tagged >= 50, "too few {} puzzles to judge", s.theme);
        if s.detected < target {
            misses.push(format!("{} {:.3} < {target}", s.theme, s.detected));
        }
    }
    assert!(misses.is_empty(), "below target: {misses:?}");
}
