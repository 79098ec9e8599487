//! Hostile input: schemathesis (PyPI) generates >= 10,000 requests from the
//! server's own /openapi.json against a live server with a player's token,
//! valid and invalid, and checks every answer: no 5xx, no dropped connection,
//! every status and body as documented. Real ids of the player's match, player
//! record and memory are fed in so requests reach past the 404s.
//! `scripts/schemathesis.sh` provides the tool (SCHEMATHESIS overrides it).

mod common;

use std::process::{Command, Stdio};

use common::*;
use serde_json::{Value, json};

/// Enough examples per operation for >= 10,000 requests over the 27 operations.
const MAX_EXAMPLES: &str = "500";
const MIN_REQUESTS: usize = 10_000;

fn schemathesis() -> String {
    if let Ok(st) = std::env::var("SCHEMATHESIS") {
        return st;
    }
    let out = Command::new(repo().join("scripts/schemathesis.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("scripts/schemathesis.sh runs");
    assert!(out.status.success(), "scripts/schemathesis.sh failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("SCHEMATHESIS="))
        .expect("the script names the st command")
        .to_string()
}

/// The checked-in rules plus this run's real ids, per path.
fn config(match_id: &str, player: &str, memory: &str) -> String {
    let rules = std::fs::read_to_string(repo().join("tests/fuzz/schemathesis.toml")).unwrap();
    format!(
        "{rules}\n\
         [[operations]]\ninclude-path-regex = \"^/api/matches/\\\\{{id\\\\}}\"\nparameters = {{ id = \"{match_id}\" }}\n\n\
         [[operations]]\ninclude-path-regex = \"^/api/players/\\\\{{id\\\\}}\"\nparameters = {{ id = \"{player}\" }}\n\n\
         [[operations]]\ninclude-path-regex = \"^/api/memories/\"\nparameters = {{ id = \"{memory}\" }}\n"
    )
}

/// (requests, 5xx answers) in the HAR report schemathesis wrote.
fn har_counts(dir: &std::path::Path) -> (usize, usize) {
    let file = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a HAR report");
    let har: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let entries = har["log"]["entries"].as_array().unwrap();
    let server_errors = entries
        .iter()
        .filter(|e| e["response"]["status"].as_u64().is_some_and(|s| s >= 500))
        .count();
    (entries.len(), server_errors)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_generated_requests_get_no_server_error() {
    let server = Server::start_with(&[
        // The fuzzer should reach the chat and memory code, not the limiter.
        ("KIBITZ_CHAT_PER_MINUTE", "1000000"),
        ("KIBITZ_MEMORY_WRITES_PER_MINUTE", "1000000"),
        // Ten thousand requests on one token: the limiter would answer most.
        ("KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN", "0"),
    ])
    .await;
    let player = server.new_player("Fuzz").await;
    let (m, _) = server.new_match(&player, "margot", "white").await;
    let chat = json!({ "text": "I keep bees on my allotment" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    let remembered = eventually(20, || async { !server.memories(&player).await.is_empty() }).await;
    assert!(remembered, "the chat left a memory to fuzz");
    let memory = server.memories(&player).await[0]["id"].as_str().unwrap().to_string();

    let work = tempfile::tempdir().unwrap();
    let config_path = work.path().join("schemathesis.toml");
    std::fs::write(&config_path, config(&m, &player, &memory)).unwrap();
    let report = work.path().join("report");
    let schema = format!("{}/openapi.json", server.base);
    let auth = format!("Authorization: Bearer {}", server.token(&player));
    let run = tokio::task::spawn_blocking(move || {
        // One worker: two trip a CPython 3.11 AST race inside hypothesis.
        Command::new(schemathesis())
            .arg("--config-file")
            .arg(&config_path)
            .args(["run", &schema, "-H", &auth, "--checks", "all", "--workers", "1"])
            .args(["--max-examples", MAX_EXAMPLES, "--seed", "7", "--report", "har"])
            .arg("--report-dir")
            .arg(&report)
            .args(["--request-timeout", "30"])
            .env("NO_COLOR", "1")
            .output()
            .expect("schemathesis runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let saved = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("api_fuzz.out");
    std::fs::write(&saved, stdout.as_bytes()).unwrap();
    assert!(
        run.status.success(),
        "schemathesis found failures (its output is also in {}):\n{stdout}",
        saved.display()
    );

    let (requests, server_errors) = har_counts(&work.path().join("report"));
    let summary: Vec<&str> = stdout.lines().filter(|l| l.contains("generated")).collect();
    eprintln!(
        "api_fuzz: {requests} requests, {server_errors} 5xx; {}",
        summary.join(" ")
    );
    assert!(requests >= MIN_REQUESTS, "only {requests} requests were made");
    assert_eq!(server_errors, 0);
    // Still serving, and the player's data is intact enough to read.
    let (status, _) = server.get(&format!("/api/players/{player}")).await;
    assert_eq!(status, 200);
}
