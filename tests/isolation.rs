//! Isolation, swept over the OpenAPI document so no endpoint escapes: every
//! operation that names a match, player or memory is tried with another
//! player's token (404, nothing changes), without a token (401) and with the
//! owner's (let through); admin operations refuse players (403) and the
//! anonymous (401). Tokens never reach the server log.

mod common;

use common::*;
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-the-isolation-sweep";

struct Op {
    method: Method,
    /// Tagged `admin` in the document: for the admin token only.
    admin: bool,
    template: String,
    path: String,
    body: Option<Value>,
}

/// Every operation in the served document, its `{id}` filled with one of
/// Alice's things and a valid body.
async fn operations(server: &Server, alice: &str, m: &str, (memory, puzzle): (&str, &str)) -> Vec<Op> {
    let (status, doc) = server.get("/openapi.json").await;
    assert_eq!(status, 200);
    let mut ops = Vec::new();
    for (template, methods) in doc["paths"].as_object().unwrap() {
        // `/metrics` names nothing of anyone's.
        let id = match template.split('/').nth(2).unwrap_or_default() {
            "players" => alice,
            "memories" => memory,
            "puzzles" => puzzle,
            "personas" => "margot",
            "admin" if template.starts_with("/api/admin/personas") => "margot",
            _ => m,
        };
        let path = template.replace("{id}", id);
        for (method, spec) in methods.as_object().unwrap() {
            let method: Method = method.to_uppercase().parse().unwrap();
            let body = body_for(&method, template, alice);
            ops.push(Op {
                method,
                admin: spec["tags"].as_array().is_some_and(|t| t.contains(&json!("admin"))),
                template: template.clone(),
                path: format!("{path}{}", required_query(spec)),
                body,
            });
        }
    }
    ops
}

/// `?name=chess&...` for the operation's required query parameters.
fn required_query(spec: &Value) -> String {
    let names: Vec<String> = spec["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "query" && p["required"] == true)
        .map(|p| format!("{}=chess", p["name"].as_str().unwrap()))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("?{}", names.join("&"))
    }
}

fn body_for(method: &Method, template: &str, alice: &str) -> Option<Value> {
    if *method == Method::GET || *method == Method::DELETE {
        return None;
    }
    if template == "/api/admin/personas/import" {
        let card = json!({ "name": "Isolation Card", "description": "A card the admin may import." });
        return Some(json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": card }));
    }
    Some(match template.rsplit('/').next().unwrap() {
        "matches" => json!({ "player_id": alice, "persona_id": "margot", "color": "white" }),
        "moves" | "answer" | "puzzle" => json!({ "move": "e4" }),
        "chat" => json!({ "text": "What do you remember of me?" }),
        "draw" => json!({ "action": "offer" }),
        "talk" => json!({ "mode": "quiet" }),
        "players" => json!({ "name": "Someone" }),
        "{id}" => json!({ "pinned": true }),
        _ => json!({}),
    })
}

/// A puzzle of Alice's: a finished game where she hung her queen.
async fn planted_puzzle(server: &Server, alice: &str) -> String {
    let fen = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";
    let blunder = server.new_match_at(alice, "margot", "white", fen).await;
    server.play_move(&blunder, "Qd4").await;
    server.resign(&blunder).await;
    let list = format!("/api/players/{alice}/puzzles");
    assert!(eventually(30, || async { server.get(&list).await.1[0]["id"].is_string() }).await);
    server.get(&list).await.1[0]["id"].as_str().unwrap().to_string()
}

async fn send(server: &Server, op: &Op, token: Option<&str>) -> (u16, Value) {
    server
        .send_as(op.method.clone(), &op.path, token, op.body.clone())
        .await
}

/// Every route but the public ones: the health, the personas, joining, and
/// signing in with Lichess (how a token is had: only the player Lichess
/// vouches for gets one, tests/lichess/).
fn secured(doc_op: &Op) -> bool {
    !(doc_op.template == "/api/health"
        || doc_op.template.starts_with("/api/personas")
        || doc_op.template.starts_with("/api/auth/lichess")
        || (doc_op.template == "/api/players" && doc_op.method == Method::POST))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_endpoint_lets_one_player_reach_anothers_things() {
    // The admin's card import writes a persona: into a copy, not the repo's.
    let personas = common::cards::personas_copy();
    let personas_dir = personas.path().to_string_lossy().to_string();
    let server = Server::start_capturing_log(&[
        ("KIBITZ_PERSONAS_DIR", &personas_dir),
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
        ("RUST_LOG", "debug,qdrant_edge=warn,hyper=debug,h2=warn"),
    ])
    .await;
    let (alice, bob) = (server.new_player("Alice").await, server.new_player("Bob").await);
    let (alice_token, bob_token) = (server.token(&alice), server.token(&bob));
    // (Her finished game first: what it leaves in her memories is settled
    // before they are counted.)
    let puzzle = planted_puzzle(&server, &alice).await;
    let (m, _) = server.new_match(&alice, "margot", "white").await;
    let chat = json!({ "text": "My cat is called Bishop" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    let told = || async { server.memory_texts(&alice).await.iter().any(|t| t.contains("Bishop")) };
    assert!(eventually(20, told).await);
    let memories_before = server.memories(&alice).await;
    let memory = memories_before[0]["id"].as_str().unwrap().to_string();
    let (_, match_before) = server.get(&format!("/api/matches/{m}")).await;

    let ops = operations(&server, &alice, &m, (&memory, &puzzle)).await;
    assert!(ops.len() >= 27, "{} operations in the document", ops.len());
    let mut swept = 0;
    for op in ops.iter().filter(|op| secured(op)) {
        let what = format!("{} {}", op.method, op.template);
        let (status, body) = send(&server, op, None).await;
        assert_eq!(status, 401, "{what} without a token: {body}");
        let (status, body) = send(&server, op, Some("not-a-token")).await;
        assert_eq!(status, 401, "{what} with a made-up token: {body}");
        let (status, body) = send(&server, op, Some(&bob_token)).await;
        let expected = if op.admin { 403 } else { 404 };
        assert_eq!(status, expected, "{what} with another player's token: {body}");
        swept += 1;
    }
    assert!(swept >= 22, "only {swept} secured operations swept");

    // Bob changed nothing of Alice's.
    let (_, match_after) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(match_after["moves"], match_before["moves"]);
    assert_eq!(match_after["status"], "active");
    let memories_after = server.memories(&alice).await;
    assert_eq!(memories_after.len(), memories_before.len());
    assert_eq!(memories_after[0]["pinned"], memories_before[0]["pinned"]);

    // Bob's WebSocket on Alice's match is refused before the upgrade.
    let url = server.ws_url(&m, 0);
    assert_eq!(ws_connect_as(&url, &bob_token).await.err(), Some(404));
    assert!(ws_connect_as(&url, &alice_token).await.is_ok());

    // The same requests with Alice's own token get through the gate
    // (admin-only ones still do not), so the 404s above were not typos. The
    // match is over first, so its reflection exists; erasures go last.
    let resign = format!("/api/matches/{m}/resign");
    assert_eq!(server.post(&resign, json!({})).await.0, 200);
    let reflection = format!("/api/matches/{m}/reflection");
    assert!(eventually(30, || async { server.get(&reflection).await.0 == 200 }).await);
    let mut owned: Vec<&Op> = ops
        .iter()
        .filter(|op| secured(op) && !op.template.ends_with("/ws"))
        .collect();
    owned.sort_by_key(|op| op.method == Method::DELETE);
    for op in owned {
        let (status, body) = server
            .send_as(op.method.clone(), &op.path, Some(&alice_token), op.body.clone())
            .await;
        let what = format!("{} {}", op.method, op.template);
        if op.admin {
            assert_eq!(status, 403, "{what}: {body}");
            let (status, body) = server
                .send_as(op.method.clone(), &op.path, Some(ADMIN), op.body.clone())
                .await;
            assert!(status < 400, "{what} as admin: {status} {body}");
        } else {
            assert!(
                ![401, 403, 404].contains(&status),
                "{what} as its owner: {status} {body}"
            );
        }
    }

    let log = server.log_text();
    assert!(log.contains("kibitz listening"), "the log was captured");
    for token in [&alice_token, &bob_token, &ADMIN.to_string()] {
        assert!(!log.contains(token.as_str()), "a token reached the log");
    }
}
