//! A persona remembers a player across matches, and never tells one
//! player's memories to another.

mod common;

use common::*;
use serde_json::{Value, json};

async fn memory_ids(server: &Server, player: &str) -> Vec<String> {
    server
        .memories(player)
        .await
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

fn recalled(triggers: &[Value]) -> Vec<String> {
    triggers
        .iter()
        .flat_map(|t| {
            t["recalled_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap().to_string())
        })
        .collect()
}

fn persona_messages(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "message" && e["data"]["sender"] == "persona")
        .map(|e| e["data"]["content"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_follow_their_player_and_no_one_else() {
    let server = Server::start().await;
    let pat = server.new_player("Patricia").await;
    let quinn = server.new_player("Quinn").await;

    // Match 1 with Patricia: she talks about her openings, plays, resigns.
    let (m1, _) = server.new_match(&pat, "pip", "white").await;
    let chat = json!({ "text": "I always play the Sicilian defence with black" });
    assert_eq!(server.post(&format!("/api/matches/{m1}/chat"), chat).await.0, 200);
    assert_eq!(
        server
            .post(&format!("/api/matches/{m1}/moves"), json!({ "move": "d4" }))
            .await
            .0,
        200
    );
    assert_eq!(
        server.post(&format!("/api/matches/{m1}/resign"), json!({})).await.0,
        200
    );
    let pat_memories = memory_ids(&server, &pat).await;
    assert!(
        pat_memories.len() >= 2,
        "the scripted brain saves memories: {pat_memories:?}"
    );

    // Match 2 with Patricia: the persona recalls her and says so.
    let (m2, created) = server.new_match(&pat, "pip", "black").await;
    let greeting = persona_messages(created["events"].as_array().unwrap()).join(" ");
    let log = server.triggers(&m2).await;
    let before_match = recalled(&log[..1]);
    assert!(
        before_match.iter().any(|id| pat_memories.contains(id)),
        "before_match recalled {before_match:?}"
    );
    assert!(greeting.contains("Patricia"), "{greeting}");
    let list = serde_json::Value::from(server.memories(&pat).await);
    let contents: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        contents.iter().any(|c| greeting.contains(c)),
        "greeting {greeting:?} quotes none of {contents:?}"
    );
    // Each memory says where it came from.
    for m in list.as_array().unwrap() {
        assert_eq!(m["related_match_id"], m1.as_str(), "{m}");
        assert_eq!(m["created_by"], "main_agent");
        assert_eq!(m["metadata"]["player_name"], "Patricia");
        assert!(
            ["on_user_input", "after_match"].contains(&m["metadata"]["trigger"].as_str().unwrap()),
            "{m}"
        );
        assert!(
            m["metadata"]["ply"].is_u64() && m["metadata"]["difficulty"] == 1200,
            "{m}"
        );
    }

    // A match with Quinn, who even asks about the Sicilian: none of Patricia's memories.
    let (m3, created) = server.new_match(&quinn, "pip", "white").await;
    let ask = json!({ "text": "Do you know anyone who plays the Sicilian defence with black?" });
    let (status, out) = server.post(&format!("/api/matches/{m3}/chat"), ask).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(
        server
            .post(&format!("/api/matches/{m3}/moves"), json!({ "move": "e4" }))
            .await
            .0,
        200
    );
    let quinn_recalled = recalled(&server.triggers(&m3).await);
    assert!(
        quinn_recalled.iter().all(|id| !pat_memories.contains(id)),
        "Quinn was told Patricia's memories"
    );
    let said = persona_messages(&server.events(&m3).await).join(" ")
        + &persona_messages(created["events"].as_array().unwrap()).join(" ");
    assert!(!said.contains("Patricia"), "{said}");
    for id in memory_ids(&server, &quinn).await {
        assert!(!pat_memories.contains(&id));
    }
}
