//! Paths that try to leave a match's routes: refused (400 `bad_path`)
//! before any limiter, relay or route, in every spelling.

use serde_json::json;

use super::common::Server;
use super::raw;

const SECRET: &str = "the-test-club-shares-this";

/// Every spelling of a way out of `/api/matches/{m}` to `target`.
pub fn escapes(m: &str, target: &str) -> Vec<String> {
    vec![
        format!("/api/matches/{m}/../../../{target}"),
        format!("/api/matches/{m}/%2e%2e/%2e%2e/%2e%2e/{target}"),
        format!("/api/matches/{m}/%2E%2e%2F%2e%2e%2F%2e%2e%2F{target}"),
        format!("/api/matches/{m}/.%2e/.%2e/.%2e/{target}"),
        format!("/api/matches/{m}//..//..//../{target}"),
        format!("/api/matches/{m}/moves;/../../../{target}"),
        format!("/api/matches/{m}/..\\..\\..\\{target}"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_out_of_a_match_is_refused_before_it_costs_anything() {
    let server = Server::start_with(&[
        ("KIBITZ_CLUSTER_SECRET", SECRET),
        ("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "8"),
    ])
    .await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "pip", "white").await;
    let token = server.token(&ann);
    let bearer = format!("Bearer {token}");
    let players_before = players(&server.sql().await).await;
    let forget = r#"{"player":null,"forms":["pip"]}"#;
    for target in ["internal/forget", "api/players", "api/health"] {
        for path in escapes(&m, target) {
            let headers = [("Authorization", bearer.as_str()), ("x-kibitz-relayed", SECRET)];
            let answer = raw::send(server.port, attacker(), "POST", &path, &headers, forget).await;
            assert_eq!(answer.status, 400, "{path}: {}", answer.body);
            assert_eq!(answer.body["error"]["code"], "bad_path", "{path}");
        }
    }
    assert_eq!(
        players(&server.sql().await).await,
        players_before,
        "no player was registered on the way"
    );
    // None of the 21 refusals took a token from the attacker's 8.
    let path = format!("/api/matches/{m}");
    let mut statuses = Vec::new();
    for _ in 0..9 {
        statuses.push(
            raw::send(server.port, attacker(), "GET", &path, &[("Authorization", &bearer)], "")
                .await
                .status,
        );
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 429]);
    // The match's own routes, written plainly, still work.
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    // The internal route is no route to anyone without the secret.
    let direct = raw::send(server.port, None, "POST", "/internal/forget", &[], forget).await;
    assert_eq!(direct.status, 404);
}

/// The hostile client's own loopback address, apart from the test's.
fn attacker() -> Option<std::net::IpAddr> {
    Some([127, 0, 0, 9].into())
}

/// Players in the club's SQL.
pub async fn players(sql: &sqlx::AnyPool) -> i64 {
    use sqlx::Row;
    let row = sqlx::query("SELECT COUNT(*) AS n FROM players")
        .fetch_one(sql)
        .await
        .unwrap();
    row.get("n")
}
