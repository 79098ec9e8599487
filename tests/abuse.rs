//! What one client may start and hold: registrations per address and by
//! invite or admin only, live matches per player (another with the same
//! persona resumes the unfinished one), sockets per match and player,
//! requests per token; each refusal a clear code with `Retry-After` where
//! waiting helps.

mod common;

use common::*;
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-the-abuse-tests";

/// POST /api/players as `token` (None: anonymous): status, body, Retry-After.
async fn register(server: &Server, name: &str, token: Option<&str>, invite: Option<&str>) -> (u16, Value, Option<u64>) {
    let mut req = reqwest::Client::new()
        .post(format!("{}/api/players", server.base))
        .json(&json!({ "name": name, "invite": invite }));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let response = req.send().await.unwrap();
    let status = response.status().as_u16();
    let retry = retry_after(&response);
    (status, response.json().await.unwrap(), retry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_registration_is_limited_per_address() {
    let server = Server::start_with(&[("KIBITZ_REGISTRATIONS_PER_HOUR", "3"), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    for i in 0..3 {
        let (status, out, _) = register(&server, &format!("Bot {i}"), None, None).await;
        assert_eq!(status, 201, "{out}");
    }
    let (status, out, retry) = register(&server, "Bot 3", None, None).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{out}"
    );
    assert!(
        retry.is_some_and(|s| s > 60),
        "an hour's allowance refills slowly: {retry:?}"
    );
    // The admin is not an anonymous address.
    let (status, out, _) = register(&server, "Guest", Some(ADMIN), None).await;
    assert_eq!(status, 201, "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_invite_a_code_lets_one_player_in_once() {
    let server = Server::start_with(&[("KIBITZ_REGISTRATION", "invite"), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let (status, out, _) = register(&server, "Ann", None, None).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (403, Some("invite_required")),
        "{out}"
    );
    let (status, out, _) = register(&server, "Ann", None, Some("not-a-code")).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (403, Some("invalid_invite")),
        "{out}"
    );

    let invite = |token: &'static str| {
        let server = &server;
        async move {
            server
                .send_as(Method::POST, "/api/admin/invites", Some(token), None)
                .await
        }
    };
    let (status, code) = invite(ADMIN).await;
    assert_eq!(status, 201, "{code}");
    let code = code["code"].as_str().unwrap().to_string();
    let (status, out, _) = register(&server, "Ann", None, Some(&code)).await;
    assert_eq!(status, 201, "{out}");
    let ann_token = out["token"].as_str().unwrap().to_string();
    let (status, out, _) = register(&server, "Bob", None, Some(&code)).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (403, Some("invalid_invite")),
        "used once: {out}"
    );
    // A player may not issue invites.
    let (status, _) = server
        .send_as(Method::POST, "/api/admin/invites", Some(&ann_token), None)
        .await;
    assert_eq!(status, 403);

    // An expired code is refused.
    let (_, late) = invite(ADMIN).await;
    let late = late["code"].as_str().unwrap().to_string();
    sqlx::query("UPDATE invites SET expires_at = '2000-01-01T00:00:00.000Z' WHERE used_at IS NULL")
        .execute(&server.sql().await)
        .await
        .unwrap();
    let (status, out, _) = register(&server, "Cid", None, Some(&late)).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (403, Some("invalid_invite")),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_registration_lets_only_the_admin_create_players() {
    let server = Server::start_with(&[("KIBITZ_REGISTRATION", "admin"), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let (status, out, _) = register(&server, "Ann", None, None).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (403, Some("registration_closed")),
        "{out}"
    );
    assert!(out["error"]["message"].as_str().unwrap().contains("admin"), "{out}");
    let (status, out, _) = register(&server, "Ann", Some(ADMIN), None).await;
    assert_eq!(status, 201, "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_holds_a_few_live_matches_and_the_same_persona_resumes() {
    let server = Server::start_with(&[("KIBITZ_LIVE_MATCHES_PER_PLAYER", "2")]).await;
    let ann = server.new_player("Ann").await;
    let (first, _) = server.new_match(&ann, "viktor", "white").await;
    // The same persona again: the unfinished match, not a new one.
    let body = json!({ "player_id": ann, "persona_id": "viktor", "color": "black" });
    let (status, again) = server.post("/api/matches", body).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(
        (again["state"]["id"].as_str(), again["resumed"].as_bool()),
        (Some(first.as_str()), Some(true))
    );
    server.new_match(&ann, "margot", "white").await;
    let (status, out) = server
        .post("/api/matches", json!({ "player_id": ann, "persona_id": "pip" }))
        .await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (429, Some("too_many_matches")),
        "{out}"
    );
    assert!(
        out["error"]["message"].as_str().unwrap().contains('2'),
        "names the cap: {out}"
    );
    // Another player is not held to Ann's count.
    let bob = server.new_player("Bob").await;
    server.new_match(&bob, "pip", "white").await;
    // A finished match frees its place.
    let (status, out) = server.post(&format!("/api/matches/{first}/resign"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    let (_, created) = server.new_match(&ann, "pip", "white").await;
    assert_eq!(created["resumed"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_capped_per_match_and_given_back() {
    let server = Server::start_with(&[("KIBITZ_SOCKETS_PER_MATCH", "2"), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "pip", "white").await;
    let token = server.token(&ann);
    let first = ws_connect_as(&server.ws_url(&m, 0), &token).await.expect("first");
    let _second = ws_connect_as(&server.ws_url(&m, 0), &token).await.expect("second");
    assert_eq!(ws_connect_as(&server.ws_url(&m, 0), &token).await.err(), Some(429));
    // The admin status counts them against the limit.
    let (_, status) = server.get_as("/api/admin/status", ADMIN).await;
    assert_eq!(
        (
            status["open_sockets"].as_u64(),
            status["limits"]["sockets_per_match"].as_u64()
        ),
        (Some(2), Some(2))
    );
    drop(first);
    let mut again = Err(0);
    for _ in 0..50 {
        again = ws_connect_as(&server.ws_url(&m, 0), &token).await;
        if again.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(again.is_ok(), "a closed socket gives its place back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_limited_per_token_on_every_route() {
    let server = Server::start_with(&[("KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN", "30")]).await;
    let (ann, bob) = (server.new_player("Ann").await, server.new_player("Bob").await);
    let path = format!("/api/players/{ann}");
    let mut refused = None;
    for _ in 0..40 {
        let response = reqwest::Client::new()
            .get(format!("{}{path}", server.base))
            .bearer_auth(server.token(&ann))
            .send()
            .await
            .unwrap();
        if response.status() == 429 {
            refused = Some(response);
            break;
        }
    }
    let refused = refused.expect("the token's allowance runs out");
    let retry: u64 = refused.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "one request refills in 2 s: {retry}");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited");
    // Every route counts (the personas list too); another token does not.
    let (status, _) = server.get_as("/api/personas", &server.token(&ann)).await;
    assert_eq!(status, 429);
    let (status, out) = server.get_as(&format!("/api/players/{bob}"), &server.token(&bob)).await;
    assert_eq!(status, 200, "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_limited_per_address_without_a_token_too() {
    let server = Server::start_with(&[("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "20")]).await;
    let mut statuses = Vec::new();
    for _ in 0..25 {
        statuses.push(server.get("/api/personas").await.0);
    }
    // (The start-up's health checks came from the same address.)
    let served = statuses.iter().filter(|s| **s == 200).count();
    assert!((17..=20).contains(&served), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
}
