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

/// What the subconscious reads off a board (`subconscious::board`), checked
/// the same way: after the puzzle's first move (the player's slip), the
/// persona's chances must name the tagged tactic, and the endgame's kind
/// must match Lichess's endgame tags.
#[test]
fn situations_name_what_lichess_tags_the_puzzles_with() {
    use kibitz::subconscious::board::{Board, EndgameKind, Motif, Phase, chances};
    use shakmaty::Position;
    let text = std::fs::read_to_string(puzzles_csv()).unwrap();
    let puzzles = parse_csv(&text);
    type Check = (&'static str, f64, fn(&Board, &[Motif]) -> bool);
    let checks: [Check; 7] = [
        ("mateIn1", 0.90, |_, m| {
            m.iter().any(|m| matches!(m, Motif::Mate { .. }))
        }),
        ("backRankMate", 0.60, |_, m| {
            m.iter()
                .any(|m| matches!(m, Motif::Mate { back_rank: true } | Motif::BackRank))
        }),
        ("fork", 0.70, |_, m| m.iter().any(|m| matches!(m, Motif::Fork(_)))),
        ("hangingPiece", 0.85, |_, m| {
            m.iter().any(|m| matches!(m, Motif::HangingPiece(_)))
        }),
        ("rookEndgame", 0.85, |b, _| b.endgame() == Some(EndgameKind::Rook)),
        ("queenEndgame", 0.80, |b, _| b.endgame() == Some(EndgameKind::Queen)),
        ("endgame", 0.80, |b, _| b.phase() == Phase::Endgame),
    ];
    let mut misses = Vec::new();
    for (tag, target, holds) in checks {
        let reads = |p: &kibitz::chess::puzzles::Puzzle| {
            let board = Board {
                pos: p.pos.clone(),
                user: !p.pos.turn(),
            };
            holds(&board, &chances(&p.pos))
        };
        let (tagged, untagged): (Vec<_>, Vec<_>) = puzzles.iter().partition(|p| p.themes.iter().any(|t| t == tag));
        let share = tagged.iter().filter(|p| reads(p)).count() as f64 / tagged.len().max(1) as f64;
        let claimed = untagged.iter().filter(|p| reads(p)).count() as f64 / untagged.len().max(1) as f64;
        println!(
            "{tag:<13} {:>5} tagged, read {share:.3} (target {target}), claimed on {claimed:.3} of the others",
            tagged.len()
        );
        assert!(tagged.len() >= 30, "too few {tag} puzzles to judge");
        if share < target {
            misses.push(format!("{tag} {share:.3} < {target}"));
        }
    }
    assert!(misses.is_empty(), "below target: {misses:?}");
}
