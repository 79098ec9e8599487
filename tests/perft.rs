//! Data-driven perft on shakmaty's suites and littlewing's (read from the
//! copies cargo fetches from the registry; not committed): the legal_moves
//! tool lists exactly the legal moves, and every SAN it prints parses back to
//! its move, so node counts match the published ones.

use std::path::PathBuf;
use std::process::Command;

use kibitz::chess::notation;
use kibitz::chess::tools::{ToolCall, ToolResult, analyze_board};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// Where cargo keeps the source of `package`, a dependency of `manifest`
/// (`cargo metadata` fetches it from the registry if needed).
fn crate_dir(manifest: &std::path::Path, package: &str) -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let found = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == package)
        .and_then(|p| p["manifest_path"].as_str())
        .unwrap_or_else(|| panic!("{package} is a dependency"));
    PathBuf::from(found).parent().unwrap().to_path_buf()
}

fn shakmaty_dir() -> PathBuf {
    crate_dir(
        &std::path::PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
        )
        .join("Cargo.toml"),
        "shakmaty",
    )
}

/// littlewing (MIT) is not our dependency: a throwaway manifest that names it
/// lets cargo fetch it from crates.io.
fn littlewing_dir() -> PathBuf {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    let manifest = dir.path().join("Cargo.toml");
    let toml = "[package]\nname = \"fetch-littlewing\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
                [dependencies]\nlittlewing = \"=0.7.0\"\n";
    std::fs::write(&manifest, toml).unwrap();
    crate_dir(&manifest, "littlewing")
}

/// littlewing's `test_perft`: `let fen = "..."` (or `DEFAULT_FEN`) then
/// `assert_eq!(game.perft(depth), nodes)` lines.
fn littlewing_suite() -> Vec<Case> {
    let path = littlewing_dir().join("src/search.rs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = text.find("fn test_perft()").expect("littlewing has test_perft");
    let body = &text[start..];
    let body = &body[..body.find("#[test]").unwrap_or(body.len())];
    let mut cases: Vec<Case> = Vec::new();
    for line in body.lines().map(str::trim) {
        let fen = if line.contains("DEFAULT_FEN") {
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        } else {
            line.strip_prefix("let fen = \"").and_then(|r| r.split('"').next())
        };
        if let Some(fen) = fen {
            cases.push(Case {
                id: format!("littlewing #{}", cases.len() + 1),
                epd: fen.to_string(),
                counts: Vec::new(),
            });
        } else if let (Some(rest), Some(case)) = (line.strip_prefix("assert_eq!(game.perft("), cases.last_mut()) {
            let (depth, nodes) = rest.split_once("), ").unwrap();
            case.counts
                .push((depth.parse().unwrap(), nodes.trim_end_matches(");").parse().unwrap()));
        }
    }
    cases
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
    check_cases(name, suite(name), limit, max_depth);
}

/// Checks the counts up to `max_depth`; returns how many were checked.
fn check_cases(name: &str, cases: Vec<Case>, limit: usize, max_depth: u32) -> usize {
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
    checked
}

#[test]
fn tricky_positions_to_depth_two() {
    check("tricky.perft", usize::MAX, 2);
}

#[test]
fn random_positions_to_depth_two() {
    check("random.perft", 400, 2);
}

#[test]
fn littlewings_whole_suite() {
    let cases = littlewing_suite();
    assert!(cases.len() >= 8, "littlewing's suite: {} positions", cases.len());
    let listed: usize = cases.iter().map(|c| c.counts.len()).sum();
    // Every position is a standard one and every count is checked (depth 4 at most).
    assert_eq!(check_cases("littlewing", cases, usize::MAX, 4), listed);
}
