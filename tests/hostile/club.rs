//! The same hostile client against a two-node club (PostgreSQL, a Qdrant
//! server) and the shipped nginx in front of it: a path out of a match
//! held by the other node answers 400 on either node and is never relayed;
//! through nginx it never reaches a node's internal route; a relayed
//! request is charged to its caller's token on the holder too.

use serde_json::json;

use super::common::club::{Club, Nginx, SECRET};
use super::common::{eventually, free_port};
use super::raw;
use super::traversal::{escapes, players};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_out_of_a_match_held_elsewhere_reaches_nothing() {
    let Some(club) = Club::start(2, &[]).await else {
        return;
    };
    let (a, b) = (club.node(0), club.node(1));
    let ann = a.new_player("Ann").await;
    let (m, _) = a.new_match(&ann, "pip", "white").await;
    assert_eq!(club.holder(&m).await.as_deref(), Some("node0"));
    let bearer = format!("Bearer {}", a.token(&ann));
    let forget = r#"{"player":null,"forms":["Ann"]}"#;
    let players_before = players(&club.sql().await).await;
    for target in ["internal/forget", "api/players"] {
        for path in escapes(&m, target) {
            let headers = [("Authorization", bearer.as_str())];
            let answer = raw::send(b.port, None, "POST", &path, &headers, forget).await;
            assert_eq!(answer.status, 400, "{path}: {}", answer.body);
        }
    }
    assert_eq!(players(&club.sql().await).await, players_before);

    // Through nginx: a way out lands on its refusal of /internal/ (it
    // normalises the path first) or on kibitz's; never on a route.
    if let Some(bin) = std::env::var("KIBITZ_TEST_NGINX").ok().filter(|b| !b.is_empty()) {
        let port = free_port();
        let _nginx = Nginx::start(&bin, port, &[a, b]);
        let up = eventually(50, || async {
            raw::listening(port).await && raw::send(port, None, "GET", "/api/health", &[], "").await.status == 200
        })
        .await;
        assert!(up, "nginx answers");
        for path in escapes(&m, "internal/forget") {
            let headers = [("Authorization", bearer.as_str()), ("x-kibitz-relayed", SECRET)];
            let answer = raw::send(port, None, "POST", &path, &headers, forget).await;
            assert!(
                matches!(answer.status, 400 | 404),
                "{path}: {} {}",
                answer.status,
                answer.body
            );
        }
    } else {
        eprintln!("nginx part skipped: set KIBITZ_TEST_NGINX to nginx's path");
    }

    // A stranger's request is answered where it came in, never relayed.
    let eve = b.new_player("Eve").await;
    let path = format!("/api/matches/{m}/moves");
    let (status, _) = b
        .send_as(
            reqwest::Method::POST,
            &path,
            Some(&b.token(&eve)),
            Some(json!({ "move": "e4" })),
        )
        .await;
    assert_eq!(status, 404);
    let (_, state) = a.get(&format!("/api/matches/{m}")).await;
    assert_eq!(state["moves"].as_array().unwrap().len(), 0, "nothing was played");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_holder_charges_a_relayed_request_to_its_caller() {
    let Some(club) = Club::start(2, &[("KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN", "6")]).await else {
        return;
    };
    let (a, b) = (club.node(0), club.node(1));
    let ann = a.new_player("Ann").await;
    let (m, _) = a.new_match(&ann, "pip", "white").await;
    b.know_as(a);
    // The match's creation took one of Ann's six on node0; each GET through
    // node1 takes one on node1 and, relayed, one on node0.
    let mut statuses = Vec::new();
    for _ in 0..6 {
        statuses.push(b.get(&format!("/api/matches/{m}")).await.0);
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429], "node0 ran out first");
}
