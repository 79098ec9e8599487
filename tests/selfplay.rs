//! `kibitz selfplay` and `kibitz calibrate` as a user runs them: real
//! Stockfish, figures printed and written as JSON, bad specs explained.

mod common;

use std::process::Command;

use common::repo;
use serde_json::Value;

fn kibitz(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(args)
        .env("KIBITZ_PERSONAS_DIR", repo().join("personas"))
        .env_remove("KIBITZ_LLM_URL")
        .env("KIBITZ_LLM_DETECT_OLLAMA", "false")
        .env_remove("KIBITZ_CONFIG")
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).to_string();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

#[test]
fn selfplay_reports_results_latency_and_rates() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("selfplay.json");
    let (ok, out, err) = kibitz(&[
        "selfplay",
        "--white",
        "random",
        "--black",
        "persona:viktor",
        "--games",
        "2",
        "--movetime",
        "20",
        "--max-plies",
        "80",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("game 2/2") && out.contains("plies a game"), "{out}");
    let figures: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(figures["games"], 2);
    let decided = ["white_wins", "black_wins", "draws"]
        .iter()
        .map(|k| figures[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(decided, 2);
    assert!(figures["black"].as_str().unwrap().contains("aggressive"), "{figures}");
    let black = &figures["black_side"];
    assert!(black["moves"].as_u64().unwrap() > 0);
    assert!(black["latency_p50_ms"].as_f64().unwrap() > 0.0, "the engine thinks");
    assert_eq!(black["illegal_rate"], 0.0);
    assert_eq!(black["fallback_rate"], 0.0);
}

#[test]
fn calibrate_estimates_an_elo_with_an_error_bar() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("calibration.json");
    let (ok, out, err) = kibitz(&[
        "calibrate",
        "--persona",
        "pip",
        "--levels",
        "1350",
        "--games",
        "2",
        "--movetime",
        "20",
        "--max-plies",
        "60",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("pip:") && out.contains("±"), "{out}");
    let figures: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let pip = &figures[0];
    assert_eq!(pip["persona"], "pip");
    assert_eq!(pip["card_elo"], 1200);
    assert!(pip["estimate"].as_f64().is_some() && pip["plus_minus_95"].as_f64().unwrap() > 0.0);
    assert_eq!(pip["levels"][0]["games"], 2);
}

#[test]
fn bad_specs_and_missing_llms_are_explained() {
    let (ok, _, err) = kibitz(&["selfplay", "--white", "stockfish", "--black", "random"]);
    assert!(!ok && err.contains("unknown kind"), "{err}");
    let (ok, _, err) = kibitz(&["selfplay", "--white", "llm", "--black", "random", "--games", "1"]);
    assert!(!ok && err.contains("no LLM configured"), "{err}");
    let (ok, _, err) = kibitz(&["calibrate", "--persona", "nobody", "--games", "1"]);
    assert!(!ok && err.contains("no persona \"nobody\""), "{err}");
}
