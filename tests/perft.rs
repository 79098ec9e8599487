//! Data-driven perft on shakmaty's suites (read from the copy of the crate
//! cargo fetched from the registry; not committed): the legal_moves tool
//! lists exactly the legal moves, and every SAN it prints parses back to its
//! move, so node counts to depth 2 match the published ones.

use std::path::PathBuf;
use std::process::Command;

use kibitz::chess::notation;
use kibitz::chess::tools::{ToolCall, ToolResult, analyze_board};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// The shakmaty source directory cargo fetched, via `cargo metadata`.
fn shakmaty_dir() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "shakmaty")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("shakmaty is a dependency");
    PathBuf::from(manifest).parent().unwrap().to_path_buf()
}

struct Case {
    id: String,
    epd: String,
    counts: Vec<(u32, u64)>,
}

fn suite(name: &str) -> Vec<Case> {
    let path = shakmaty_dir().join("tests").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(id) = line.strip_prefix("id ") {
            cases.push(Case {
                id: id.into(),
                epd: String::new(),
                counts: Vec::new(),
            });
        } else if let (Some(epd), Some(case)) = (line.strip_prefix("epd "), cases.last_mut()) {
            case.epd = epd.into();
        } else if let (Some(p), Some(case)) = (line.strip_prefix("perft "), cases.last_mut()) {
            let (depth, nodes) = p.split_once(' ').unwrap();
            case.counts.push((depth.parse().unwrap(), nodes.parse().unwrap()));
        }
    }
    cases
}

fn perft(pos: &Chess, depth: u32) -> u64 {
    let ToolResult::LegalMoves(listed) = analyze_board(pos, &ToolCall::LegalMoves).unwrap() else {
        unreachable!()
    };
    let sans: Vec<&String> = listed.to_move.iter().flat_map(|g| &g.moves).collect();
    if depth == 1 {
        return sans.len() as u64;
    }
    sans.iter()
        .map(|san| {
            let m = notation::parse_move(pos, san).unwrap_or_else(|e| panic!("{san} does not parse back: {e}"));
            let mut next = pos.clone();
            next.play_unchecked(m);
            perft(&next, depth - 1)
        })
        .sum()
}

fn check(name: &str, limit: usize, max_depth: u32) {
    let cases = suite(name);
    assert!(!cases.is_empty(), "{name} has cases");
    let mut checked = 0;
    for case in cases.iter().take(limit) {
        let Ok(pos) = case
            .epd
            .parse::<Fen>()
            .map_err(|_| ())
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).map_err(|_| ()))
        else {
            continue; // Chess960 castling rights: not a standard game.
        };
        for &(depth, nodes) in case.counts.iter().filter(|(d, _)| *d <= max_depth) {
            assert_eq!(
                perft(&pos, depth),
                nodes,
                "{name} {} depth {depth}: {}",
                case.id,
                case.epd
            );
            checked += 1;
        }
    }
    // Chess960 positions are skipped; most of each suite must still be checked.
    let taken = limit.min(cases.len());
    assert!(
        checked >= taken / 2,
        "{name}: only {checked} counts checked for {taken} cases"
    );
}

#[test]
fn tricky_positions_to_depth_two() {
    check("tricky.perft", usize::MAX, 2);
}

#[test]
fn random_positions_to_depth_two() {
    check("random.perft", 400, 2);
}
