//! The analysed PGN, read by another program: python-chess (PyPI, pinned,
//! `scripts/python-chess.sh`) finds on every move the same evaluation the
//! match's state gives, the blunder's glyph, the better move and the
//! persona's words, and replays the game to the same position.

mod common;

use std::process::{Command, Stdio};

use common::*;
use serde_json::{Value, json};

/// White mates with Qxd8#; Qd4 instead hangs the queen to the rook.
const MATE_OR_BLUNDER: &str = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";

const READER: &str = r#"
import chess.pgn, io, json, sys
game = chess.pgn.read_game(io.StringIO(sys.stdin.read()))
assert not game.errors, game.errors
out = []
for node in game.mainline():
    pov = node.eval()
    score = None
    if pov is not None:
        w = pov.white()
        score = {"mate": w.mate()} if w.is_mate() else {"cp": w.score()}
    out.append({"san": node.san(), "nags": sorted(node.nags), "eval": score, "comment": node.comment})
print(json.dumps({"moves": out, "fen": game.end().board().fen()}))
"#;

fn python_chess() -> String {
    if let Ok(python) = std::env::var("PYTHON_CHESS") {
        return python;
    }
    let out = Command::new(repo().join("scripts/python-chess.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("scripts/python-chess.sh runs");
    assert!(out.status.success(), "scripts/python-chess.sh failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("PYTHON_CHESS="))
        .expect("the script names its python")
        .to_string()
}

fn read_with_python_chess(pgn: &str) -> Value {
    use std::io::Write;
    let mut child = Command::new(python_chess())
        .args(["-c", READER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python-chess runs");
    child.stdin.take().unwrap().write_all(pgn.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python-chess could not read:\n{pgn}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_chess_reads_the_same_evaluations_glyphs_and_words() {
    let server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let m = server.new_match_at(&pat, "margot", "white", MATE_OR_BLUNDER).await;
    for mv in ["Qd4", "h3"] {
        server.play_move(&m, mv).await;
    }
    server.resign(&m).await;
    let reviewed = eventually(30, || async {
        let (_, r) = server.get(&format!("/api/matches/{m}/reflection")).await;
        r["key_moments"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k["better"].is_string()))
    })
    .await;
    assert!(reviewed, "the game was reviewed");

    let (status, pgn) = server.text(&format!("/api/matches/{m}/pgn?analysis=true")).await;
    assert_eq!(status, 200, "{pgn}");
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    let read = read_with_python_chess(&pgn);
    let moves = read["moves"].as_array().unwrap();
    let stored = state["moves"].as_array().unwrap();
    assert_eq!(moves.len(), stored.len(), "{pgn}");
    for (ours, theirs) in stored.iter().zip(moves) {
        assert_eq!(ours["san"], theirs["san"], "{pgn}");
        assert_eq!(ours["odds"]["eval"], theirs["eval"], "move {}: {pgn}", ours["san"]);
        let nag = match ours["odds"]["class"].as_str() {
            Some("blunder") => json!([4]),
            Some("mistake") => json!([2]),
            Some("inaccuracy") => json!([6]),
            _ => json!([]),
        };
        assert_eq!(theirs["nags"], nag, "move {}: {pgn}", ours["san"]);
    }
    let blunder = &moves[0];
    assert_eq!(
        (blunder["san"].as_str(), &blunder["nags"]),
        (Some("Qd4"), &json!([4])),
        "{pgn}"
    );
    let comment = blunder["comment"].as_str().unwrap();
    assert!(comment.contains("Qxd8# was better"), "{comment}");
    // What the persona said after a move is a comment on it.
    let said = moves
        .iter()
        .filter(|m| m["comment"].as_str().is_some_and(|c| c.contains("Margot")))
        .count();
    assert!(said >= 1, "{pgn}");
    assert_eq!(read["fen"], state["fen"], "replayed to the same position");

    // The plain PGN stays as it was: no evaluations.
    let (_, plain) = server.text(&format!("/api/matches/{m}/pgn")).await;
    assert!(!plain.contains("%eval") && plain.contains("Qd4"), "{plain}");
    let (status, _) = server.text(&format!("/api/matches/{m}/pgn?analysis=maybe")).await;
    assert_eq!(status, 400);
}
