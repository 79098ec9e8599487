//! Attentive recall, end to end: a few realistic moments played through a
//! live server (`kibitz bench recall` on a small set of its own: an opening
//! line reached again, a chat line about work, a queen endgame, a
//! resignation, small talk that fits nothing, and a second player with a
//! similar memory). What each trigger handed over is read from the trigger
//! log: the memory that matters must be there, and nothing of the other
//! player's, ever.

mod common;

use common::{kibitz_in, repo};
use serde_json::Value;

#[test]
fn realistic_moments_recall_the_memory_that_matters() {
    let cwd = tempfile::tempdir().unwrap();
    let report = cwd.path().join("recall.json");
    let out = kibitz_in(cwd.path())
        .args(["bench", "recall", "--set"])
        .arg(repo().join("tests/data/recall_moments.json"))
        .arg("--json")
        .arg(&report)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let figures: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(figures["overall"]["cross_player_hits"], 0, "{figures}");
    let cases = figures["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 7);
    let mut misses = Vec::new();
    for case in cases {
        let recalled: Vec<&str> = case["recalled"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let relevant: Vec<&str> = case["relevant"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let fits = if relevant.is_empty() {
            // Small talk that fits nothing: none of the player's own memories.
            recalled.iter().all(|r| *r == "lore")
        } else {
            relevant.iter().any(|r| recalled.contains(r))
        };
        if !fits {
            misses.push(format!("{}: got {recalled:?}, wanted {relevant:?}", case["id"]));
        }
    }
    assert!(misses.is_empty(), "{misses:#?}");
}
