//! `GET /metrics`: Prometheus's text format for the admin token only,
//! with the figures of what the server just did (a match, a move, a chat
//! line remembered) and every line of the exposition well formed.

mod common;

use common::Server;
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
    let chat = json!({ "text": "I teach the cello at a music school" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);

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

    // Every sample line: a metric name, optional labels, a number.
    for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line}"));
        assert!(value.parse::<f64>().is_ok() || value == "+Inf", "{line}");
        let name = series.split('{').next().unwrap();
        assert!(
            name.starts_with("kibitz_") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{line}"
        );
    }
}
