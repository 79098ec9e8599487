//! The review of a finished game (GET /api/matches/{id}/review): every move
//! with White's win chance, the engine's score and lichess's glyph; the key
//! moment with the persona's comment and the better move as UCI for the
//! arrow; the game's puzzle. Not before the game is over, not for anyone
//! else; and a game whose reflection was lost still has its review. An
//! offered puzzle outlives a crash of the server.

mod common;

use common::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_blunder_is_marked_explained_and_shown_with_the_better_move() {
    let server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (m, puzzle) = planted(&server, &pat).await;
    let path = format!("/api/matches/{m}/review");
    // The better move reaches the key moment once the review after the game ran.
    assert!(
        eventually(10, || async {
            server.get(&path).await.1["key_moments"][0]["better"].is_object()
        })
        .await,
        "{}",
        server.get(&path).await.1
    );
    let (status, r) = server.get(&path).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        (r["white"].as_str(), r["black"].as_str()),
        (Some("Pat"), Some("Margot Vidal")),
        "{r}"
    );
    assert_eq!(r["start_fen"], MATE_OR_BLUNDER);
    let first = &r["moves"][0];
    assert_eq!(
        (
            first["san"].as_str(),
            first["glyph"].as_str(),
            first["class"].as_str(),
            first["by"].as_str()
        ),
        (Some("Qd4"), Some("??"), Some("blunder"), Some("player")),
        "{first}"
    );
    let white = first["white_win"].as_f64().unwrap_or(100.0);
    assert!(white < 20.0, "the queen hangs: White's chance {white}");
    assert!(first["eval"]["cp"].as_i64().is_some_and(|cp| cp < -300), "{first}");

    let k = &r["key_moments"][0];
    assert_eq!(
        (k["ply"].as_i64(), k["label"].as_str()),
        (Some(1), Some("1. Qd4")),
        "{k}"
    );
    assert_eq!(k["better"], json!({ "san": "Qxd8#", "uci": "d1d8" }));
    let comment = k["comment"].as_str().unwrap_or_default();
    assert!(comment.contains("Qd4") && comment.contains("Qxd8#"), "{comment}");
    assert!(r["reflection"]["summary"].is_string(), "{r}");
    // Whether the deeper evaluation got to the blunder before the game
    // ended, the review says which figures are the quick ones.
    let moves = r["moves"].as_array().unwrap();
    let deep = moves.iter().filter(|m| m["deep"] == true).count();
    let scored = moves.iter().filter(|m| m["white_win"].is_number()).count();
    assert_eq!(r["deep_checked"], json!({ "scored": scored, "deep": deep }), "{r}");
    assert_eq!(
        k["quick_only"].as_bool(),
        Some(comment.contains("the deeper one did not check this move")),
        "{k}"
    );
    let puzzles: Vec<&str> = r["puzzles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(puzzles, [puzzle.as_str()]);
    assert!(
        r["puzzles"][0].get("solution_san").is_none(),
        "the puzzle's answer stays hidden"
    );

    // Nobody else's.
    let eve = server.new_player("Eve").await;
    let (status, _) = server.get_as(&path, &server.token(&eve)).await;
    assert_eq!(status, 404);

    // A game whose reflection was lost (the server stopped before writing
    // it) is still reviewed: the key moments come from the stored odds.
    sqlx::query("DELETE FROM reflections WHERE match_id = $1")
        .bind(&m)
        .execute(&server.sql().await)
        .await
        .unwrap();
    let (status, bare) = server.get(&path).await;
    assert_eq!(status, 200, "{bare}");
    assert!(bare["reflection"].is_null(), "{bare}");
    assert_eq!(bare["key_moments"][0]["label"], "1. Qd4", "{bare}");
    assert_eq!(bare["moves"], r["moves"]);
    assert_eq!(
        bare["key_moments"][0]["quick_only"].as_bool(),
        Some(r["moves"][0]["deep"] == false),
        "from the stored odds: quick unless the deeper evaluation checked the move {bare}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_in_progress_has_no_review_yet() {
    let server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "margot", "white").await;
    let (status, body) = server.get(&format!("/api/matches/{m}/review")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("match_not_over")),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offered_puzzle_can_be_answered_after_the_server_crashed() {
    let mut server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (_, id) = planted(&server, &pat).await;
    let (m, opened) = server.new_match(&pat, "margot", "white").await;
    assert!(offered(&opened["events"]).is_some(), "{opened}");

    server.kill();
    server.launch().await;
    let (status, answered) = server
        .post(&format!("/api/matches/{m}/puzzle"), json!({ "move": "Qxd8#" }))
        .await;
    assert_eq!(status, 200, "{answered}");
    let (_, puzzles) = server.get(&format!("/api/players/{pat}/puzzles")).await;
    assert_eq!(
        (puzzles[0]["id"].as_str(), puzzles[0]["solved"].as_i64()),
        (Some(id.as_str()), Some(1))
    );
    // One a game, after the restart too.
    let (status, _) = server
        .post(&format!("/api/matches/{m}/puzzle"), json!({ "move": "Qxd8#" }))
        .await;
    assert_eq!(status, 409);
}

fn offered(events: &Value) -> Option<&Value> {
    events.as_array()?.iter().find(|e| e["type"] == "puzzle")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_a_crash_cut_short_is_made_at_the_next_start() {
    let mut server = Server::start().await;
    let pat = server.new_player("Pat").await;
    let (m, _) = planted(&server, &pat).await;
    let list = format!("/api/players/{pat}/puzzles");
    assert!(eventually(10, || reviewed(&server, &m)).await);

    // As if the server died between the reflection and the review after it.
    server.kill();
    let sql = server.sql().await;
    sqlx::query("DELETE FROM puzzles WHERE match_id = $1")
        .bind(&m)
        .execute(&sql)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE reflections SET body = REPLACE(body, '\"reviewed\":true', '\"reviewed\":false') WHERE match_id = $1",
    )
    .bind(&m)
    .execute(&sql)
    .await
    .unwrap();
    server.launch().await;
    let (_, r) = server.get(&format!("/api/matches/{m}/reflection")).await;
    let kept = || async { server.get(&list).await.1[0]["played_san"] == "Qd4" };
    assert!(
        eventually(30, kept).await,
        "the puzzle is found again: {}; reflection then: {r}",
        server.get(&list).await.1
    );
    assert!(eventually(10, || reviewed(&server, &m)).await);
}

async fn reviewed(server: &Server, m: &str) -> bool {
    server.get(&format!("/api/matches/{m}/reflection")).await.1["reviewed"] == true
}
