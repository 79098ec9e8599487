//! `GET /metrics`: Prometheus's text format for the admin token only,
//! with the figures of what the server just did (a match, a move, a chat
//! line remembered), read by Prometheus's own parser (prometheus-client's,
//! pinned, `scripts/prometheus-parser.sh`), the values moving as a match
//! is played; and the JSON logs an operator ships.

mod common;

use std::time::Duration;

use common::Server;
use common::fake_llm::{Behaviour, FakeLlm};
use serde_json::json;

const ADMIN: &str = "admin-token-for-the-metrics-test";

/// The value of the sample `name` (with its labels, as printed), if present.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_what_the_server_did_for_the_admin_only() {
    let server = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let player = server.new_player("Mira").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let (status, state) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    assert_eq!(status, 200, "{state}");
    server.say(&m, "I teach the cello at a music school").await;

    let (status, _, _) = server.text_as("/metrics", &server.token(&player)).await;
    assert_eq!(status, 403, "a player may not read the metrics");

    let (status, kind, text) = server.text_as("/metrics", ADMIN).await;
    assert_eq!(status, 200, "{text}");
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    assert_eq!(sample(&text, "kibitz_matches_live"), Some(1.0), "{text}");
    assert!(
        sample(&text, "kibitz_move_reply_seconds_count").is_some_and(|n| n >= 1.0),
        "{text}"
    );
    for trigger in ["before_match", "on_user_move", "on_user_input"] {
        let count = format!("kibitz_trigger_seconds_count{{trigger=\"{trigger}\"}}");
        assert!(sample(&text, &count).is_some_and(|n| n >= 1.0), "{count}: {text}");
    }
    assert!(
        sample(&text, "kibitz_memories_saved_total{outcome=\"inserted\"}").is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert!(text.contains("# HELP kibitz_move_reply_seconds "), "{text}");
    assert!(text.contains("# TYPE kibitz_move_reply_seconds histogram"), "{text}");

    let parsed = parse(&text);
    let moves_before = parsed["kibitz_move_reply_seconds"]["count"].as_f64().unwrap();
    assert!(moves_before >= 1.0, "{parsed}");

    // The values move as the match goes on.
    let (status, state) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "d4" }))
        .await;
    assert_eq!(status, 200, "{state}");
    let (_, _, text) = server.text_as("/metrics", ADMIN).await;
    let parsed = parse(&text);
    assert_eq!(
        parsed["kibitz_move_reply_seconds"]["count"].as_f64(),
        Some(moves_before + 1.0),
        "{parsed}"
    );
    assert_eq!(parsed["kibitz_move_reply_seconds"]["type"], "histogram", "{parsed}");
    assert_eq!(parsed["kibitz_matches_live"]["type"], "gauge", "{parsed}");
    assert_eq!(parsed["kibitz_memories_saved"]["type"], "counter", "{parsed}");
}

/// The words asked of a model, by how they came: a greeting on time, a
/// chat reply past its deadline (the scripted voice spoke instead).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_words_are_counted_on_time_and_late() {
    let said = json!({"thinking": "greet", "actions": [
        {"action": "send_message", "content": "Welcome back to the board.", "tone": "warm"}, {"action": "stop"}]});
    let fake = FakeLlm::openai(vec![Behaviour::SlowWhen {
        needle: "harbour pilot".into(),
        wait: Duration::from_secs(4),
        answer: said.to_string(),
    }])
    .await;
    let server = Server::start_with(&[
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
        ("KIBITZ_LLM_URL", &fake.url),
        ("KIBITZ_LLM_CHAT_DEADLINE_MS", "1000"),
    ])
    .await;
    let player = server.new_player("Noor").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let outcome = |text: &str, o: &str| sample(text, &format!("kibitz_model_words_total{{outcome=\"{o}\"}}"));
    let greeted = || async { outcome(&server.text_as("/metrics", ADMIN).await.2, "on_time").is_some() };
    assert!(
        common::eventually(30, greeted).await,
        "the greeting's words came on time"
    );
    server.say(&m, "I work as a harbour pilot on the night tides").await;
    let late = || async { outcome(&server.text_as("/metrics", ADMIN).await.2, "late").is_some() };
    assert!(common::eventually(30, late).await, "the chat reply was late");
    let (_, _, text) = server.text_as("/metrics", ADMIN).await;
    assert_eq!(parse(&text)["kibitz_model_words"]["type"], "counter", "{text}");
}

/// `log_format = "json"`: one JSON object a line; what a match logs
/// names the match and the player (its `span`), never what was said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_name_the_match_and_its_player_and_not_what_was_said() {
    let server = Server::start_capturing_log(&[("KIBITZ_LOG_FORMAT", "json"), ("RUST_LOG", "info")]).await;
    let player = server.new_player("Oona").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let secret = "I keep bees behind the old lighthouse";
    server.say(&m, secret).await;
    server.resign(&m).await;
    let named = || async {
        server.log_text().lines().any(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .is_ok_and(|v| v["span"]["match_id"] == m.as_str() && v["span"]["player_id"] == player.as_str())
        })
    };
    assert!(common::eventually(30, named).await, "{}", server.log_text());
    let log = server.log_text();
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v["timestamp"].is_string() && v["level"].is_string(), "{line}");
    }
    assert!(
        !log.contains("lighthouse") && !log.contains(&server.token(&player)),
        "{log}"
    );
}

/// The exposition read by prometheus-client's parser: each family's type,
/// and a histogram's count (the parser fails on anything malformed).
fn parse(text: &str) -> serde_json::Value {
    let wheel = std::process::Command::new(common::repo().join("scripts/prometheus-parser.sh"))
        .output()
        .expect("scripts/prometheus-parser.sh runs (make test-setup fetches the parser)");
    assert!(wheel.status.success(), "{}", String::from_utf8_lossy(&wheel.stderr));
    let script = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    entry = {"type": family.type, "samples": len(family.samples)}
    for s in family.samples:
        if s.name.endswith("_count") and not s.labels:
            entry["count"] = s.value
    out[family.name] = entry
print(json.dumps(out))
"#;
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .env("PYTHONPATH", String::from_utf8_lossy(&wheel.stdout).trim())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the parser refused it: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
