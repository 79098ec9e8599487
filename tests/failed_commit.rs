//! A commit that fails (issue 33): the match never runs ahead of SQL. The
//! database itself refuses one chosen write (a trigger on `moves`, as a
//! full or failing disk would), the player is told, the match goes on from
//! what was stored, and a restart replays exactly what was acknowledged.

mod common;

use common::*;
use serde_json::json;

/// Makes the database refuse to store the move b1c3 (Nc3).
async fn refuse_nc3(server: &Server) {
    let pool = server.sql().await;
    let statements: &[&str] = if server.on_postgres() {
        &[
            "CREATE FUNCTION refuse_nc3() RETURNS trigger AS $$ BEGIN \
             IF NEW.uci = 'b1c3' THEN RAISE EXCEPTION 'the disk says no'; END IF; RETURN NEW; END $$ \
             LANGUAGE plpgsql",
            "CREATE TRIGGER refuse_nc3 BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION refuse_nc3()",
        ]
    } else {
        &[
            "CREATE TRIGGER refuse_nc3 BEFORE INSERT ON moves WHEN NEW.uci = 'b1c3' \
           BEGIN SELECT RAISE(ABORT, 'the disk says no'); END",
        ]
    };
    for sql in statements {
        sqlx::raw_sql(sql).execute(&pool).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_commit_sends_the_match_back_to_what_was_stored() {
    let mut server = Server::start().await;
    let player = server.new_player("Flo").await;
    let (m, _) = server.new_match(&player, "margot", "white").await;
    let moves = format!("/api/matches/{m}/moves");
    let (status, out) = server.post(&moves, json!({ "move": "e4" })).await;
    assert_eq!(status, 200, "{out}");
    let acknowledged = ucis(&out["state"]);
    assert_eq!(acknowledged.len(), 2, "e4 and the persona's reply");
    refuse_nc3(&server).await;

    // The move's commit fails: the player is told, and nothing of that turn
    // (the move, the persona's reply to it, its words) is kept or shown.
    let (status, out) = server.post(&moves, json!({ "move": "Nc3" })).await;
    assert!(status >= 500, "{status} {out}");
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(ucis(&state), acknowledged, "the match ran ahead of SQL: {state}");

    // The match goes on from what was stored.
    let (status, out) = server.post(&moves, json!({ "move": "Nf3" })).await;
    assert_eq!(status, 200, "{out}");
    let acknowledged = ucis(&out["state"]);
    assert_eq!(acknowledged.len(), 4, "{out}");
    assert_eq!(acknowledged[2], "g1f3");
    let events = server.events(&m).await;
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "event numbers run on"
    );
    let last_seq = state_last_seq(&server, &m).await;

    // A crash and a restart replay exactly what the player saw acknowledged.
    server.kill();
    server.launch().await;
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    assert_eq!(ucis(&state), acknowledged, "{state}");
    assert_eq!(state_last_seq(&server, &m).await, last_seq);
    let (status, out) = server.post(&moves, json!({ "move": "d4" })).await;
    assert_eq!(status, 200, "{out}");
}

async fn state_last_seq(server: &Server, m: &str) -> i64 {
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    state["last_seq"].as_i64().expect("the state's last event number")
}
