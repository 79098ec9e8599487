//! The player's controls (issue 37): quiet holds across triggers and
//! matches with that persona (and only that one) until lifted; a hint is
//! the engine's move, counted, in the PGN, given in the persona's voice;
//! the persona explains its own move; the WebSocket and the terminal take
//! the same commands.

mod common;

use common::*;
use serde_json::{Value, json};

fn of_type<'a>(out: &'a Value, kind: &str) -> Vec<&'a Value> {
    out["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .collect()
}

async fn talk(server: &Server, m: &str, mode: &str) -> Value {
    let (status, out) = server
        .post(&format!("/api/matches/{m}/talk"), json!({ "mode": mode }))
        .await;
    assert_eq!(status, 200, "{out}");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_holds_across_triggers_and_matches_until_lifted() {
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    // Viktor talks on every other move and answers captures and checks.
    let (m, _) = server.new_match(&ann, "viktor", "white").await;
    let out = talk(&server, &m, "quiet").await;
    let told = &of_type(&out, "talk")[0]["data"];
    assert_eq!(told["mode"], "quiet");
    assert!(told["text"].as_str().unwrap().contains("only speak when spoken to"));
    assert_eq!(out["state"]["talk"], "quiet");
    // Spoken to, it answers.
    let (_, out) = server
        .post(
            &format!("/api/matches/{m}/chat"),
            json!({ "text": "how are you tonight?" }),
        )
        .await;
    assert_eq!(persona_lines(&out).len(), 1, "{out}");
    let mut state = out["state"].clone();
    let mut unasked = Vec::new();
    for turn in 0..8 {
        let legal = state["legal_moves"].as_array().unwrap();
        let mv = legal[(turn * 7) % legal.len()]["uci"].as_str().unwrap().to_string();
        let (status, out) = server
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
            .await;
        assert_eq!(status, 200, "{out}");
        unasked.extend(persona_lines(&out));
        state = out["state"].clone();
        if state["status"] != "active" {
            break;
        }
    }
    assert!(unasked.is_empty(), "quiet, yet it spoke: {unasked:?}");
    if state["status"] == "active" {
        let (_, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
        assert!(
            persona_lines(&out).is_empty(),
            "no last words unasked: {:?}",
            persona_lines(&out)
        );
        assert_eq!(of_type(&out, "game_over").len(), 1);
    }

    // The next match with Viktor is quiet from the start; Margot's is not.
    let (m2, out) = server.new_match(&ann, "viktor", "black").await;
    assert!(persona_lines(&out).is_empty(), "no greeting: {:?}", persona_lines(&out));
    assert_eq!(out["state"]["talk"], "quiet");
    let (_, margot) = server.new_match(&ann, "margot", "white").await;
    assert!(!persona_lines(&margot).is_empty(), "Margot still greets");
    assert_eq!(margot["state"]["talk"], "normal");

    // Lifted: Viktor speaks unasked again (a chatty Viktor on every move).
    talk(&server, &m2, "chatty").await;
    let mut spoke = false;
    let mut state = server.get(&format!("/api/matches/{m2}")).await.1;
    for turn in 0..3 {
        let legal = state["legal_moves"].as_array().unwrap();
        let mv = legal[turn % legal.len()]["uci"].as_str().unwrap().to_string();
        let (_, out) = server
            .post(&format!("/api/matches/{m2}/moves"), json!({ "move": mv }))
            .await;
        spoke |= !persona_lines(&out).is_empty();
        state = out["state"].clone();
    }
    assert!(spoke, "chatty, it spoke on its own");
    let (status, bad) = server
        .post(&format!("/api/matches/{m2}/talk"), json!({ "mode": "loud" }))
        .await;
    assert_eq!(status, 422, "{bad}");
}

/// White mates in one (Ra8#): the hint is that move, in the persona's
/// words, counted, and a comment in the PGN.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_is_the_engines_move_counted_and_in_the_pgn() {
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let body = json!({ "player_id": ann, "persona_id": "pip", "color": "white", "fen": "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1" });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    let m = out["state"]["id"].as_str().unwrap().to_string();
    let (status, out) = server.post(&format!("/api/matches/{m}/explain"), json!({})).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (409, Some("nothing_to_explain")),
        "{out}"
    );

    let (status, out) = server.post(&format!("/api/matches/{m}/hint"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    let hint = &of_type(&out, "hint")[0]["data"];
    assert_eq!(
        (hint["san"].as_str(), hint["count"].as_u64()),
        (Some("Ra8#"), Some(1)),
        "{hint}"
    );
    let said = persona_lines(&out).join(" ");
    assert!(said.contains("“Ra8#”") && said.contains("would end the game"), "{said}");
    assert_eq!(out["state"]["hints"], 1);
    assert!(
        out["state"]["pgn"].as_str().unwrap().contains("{hint: Ra8#}"),
        "{}",
        out["state"]["pgn"]
    );

    let (_, out) = server.post(&format!("/api/matches/{m}/hint"), json!({})).await;
    assert!(persona_lines(&out).join(" ").contains("Hint number 2"), "{out}");
    let (_, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "Ra8#" }))
        .await;
    assert_eq!(out["state"]["result"], "1-0");
    let (status, pgn) = server.text(&format!("/api/matches/{m}/pgn")).await;
    assert_eq!(status, 200);
    assert_eq!(pgn.matches("{hint: Ra8#}").count(), 2, "{pgn}");
    assert_eq!(kibitz::chess::pgn::san_moves(&pgn), ["Ra8#"]);
    let (status, out) = server.post(&format!("/api/matches/{m}/hint"), json!({})).await;
    assert_eq!((status, out["error"]["code"].as_str()), (409, Some("game_over")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persona_explains_its_move_and_the_websocket_takes_the_controls() {
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "margot", "white").await;
    let (_, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    let reply = out["state"]["moves"][1]["san"].as_str().unwrap().to_string();
    let (status, out) = server.post(&format!("/api/matches/{m}/explain"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    let said = persona_lines(&out).join(" ");
    assert!(said.starts_with(&format!("{reply}? Because it ")), "{said}");

    let mut ws = server.ws(&m, out["state"]["last_seq"].as_i64().unwrap()).await;
    ws_send(&mut ws, json!({ "type": "hint" })).await;
    let frames = ws_until(&mut ws, std::time::Duration::from_secs(20), |f| {
        f["type"] == "message" && f["data"]["sender"] == "persona"
    })
    .await;
    let hint = frames.iter().find(|f| f["type"] == "hint").expect("a hint event");
    let legal: Vec<&str> = out["state"]["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["san"].as_str().unwrap())
        .collect();
    assert!(legal.contains(&hint["data"]["san"].as_str().unwrap()), "{hint}");
    ws_send(&mut ws, json!({ "type": "talk", "mode": "loud" })).await;
    let frames = ws_until(&mut ws, std::time::Duration::from_secs(5), |f| f["type"] == "error").await;
    assert_eq!(frames.last().unwrap()["data"]["code"], "invalid_command");
    ws_send(&mut ws, json!({ "type": "talk", "mode": "quiet" })).await;
    let frames = ws_until(&mut ws, std::time::Duration::from_secs(5), |f| f["type"] == "talk").await;
    assert_eq!(frames.last().unwrap()["data"]["mode"], "quiet");
}

/// `kibitz play`: /hint, /explain and /quiet in the terminal.
#[test]
fn the_terminal_takes_hint_explain_and_quiet() {
    let data = tempfile::tempdir().unwrap();
    let mut cmd = kibitz_in(data.path());
    cmd.args(["play", "--persona", "pip", "--player", "Wren", "--color", "white"])
        .env("KIBITZ_DATA_DIR", data.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    let input = "/hint\ne4\n/explain\n/quiet\n/pgn\n/quit\n";
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "kibitz play failed");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(hint 1: "), "{text}");
    assert!(text.contains("A hint? Try “"), "{text}");
    assert!(text.contains("? Because it "), "{text}");
    assert!(text.contains("Pip Okafor will only speak when spoken to"), "{text}");
    assert!(text.contains("{hint: "), "the PGN has it: {text}");
}

async fn play(server: &Server, m: &str, mv: &str) -> Value {
    let (status, out) = server
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
        .await;
    assert_eq!(status, 200, "{out}");
    out
}

async fn take_back(server: &Server, m: &str) -> Value {
    let (status, out) = server.post(&format!("/api/matches/{m}/takeback"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    out
}

fn sans(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect()
}

/// Pip grants two takebacks a game: each restores the position before the
/// player's move for both sides, is counted and in the PGN; the third is
/// refused in Pip's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_restores_the_position_for_both_sides_as_the_persona_allows() {
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "pip", "white").await;
    let (status, out) = server.post(&format!("/api/matches/{m}/explain"), json!({})).await;
    assert_eq!(status, 409, "{out}");
    let after_one = play(&server, &m, "e4").await["state"].clone();
    let out = play(&server, &m, "Qh5").await;
    let reply = sans(&out["state"])[3].clone();
    let out = take_back(&server, &m).await;
    let told = &out["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "takeback")
        .unwrap()["data"];
    assert_eq!(told["granted"], true, "{told}");
    assert_eq!(told["moves"], format!("2. Qh5 {reply}"));
    let state = &out["state"];
    assert_eq!(
        (state["fen"].clone(), sans(state)),
        (after_one["fen"].clone(), sans(&after_one))
    );
    assert_eq!(
        (state["your_turn"].as_bool(), state["takebacks"].as_u64()),
        (Some(true), Some(1))
    );
    assert!(
        out["events"].as_array().unwrap().iter().any(|e| e["type"] == "message"
            && e["data"]["content"]
                .as_str()
                .unwrap()
                .contains(&format!("“2. Qh5 {reply}”"))),
        "Pip says which moves: {out}"
    );
    // The game goes on from there: a new second move, stored where the old one was.
    let out = play(&server, &m, "Nf3").await;
    assert_eq!(sans(&out["state"])[2], "Nf3");
    assert_eq!(take_back(&server, &m).await["state"]["takebacks"], 2);
    let out = take_back(&server, &m).await;
    let told = &out["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "takeback")
        .unwrap()["data"];
    assert_eq!(told["granted"], false);
    assert!(
        told["why"].as_str().unwrap().contains("grants 2 takebacks a game"),
        "{told}"
    );
    assert_eq!(sans(&out["state"]).len(), 2, "nothing changed");
    assert!(out["events"].to_string().contains("No more takebacks!"), "{out}");

    // Ended, the stored game has both takebacks in its PGN and replays to its moves.
    let (_, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    let (_, pgn) = server.text(&format!("/api/matches/{m}/pgn")).await;
    assert_eq!(pgn.matches("{takeback: 2. ").count(), 2, "{pgn}");
    assert_eq!(kibitz::chess::pgn::san_moves(&pgn), sans(&out["state"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viktor_never_grants_one_and_margot_only_for_a_slip() {
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let (v, _) = server.new_match(&ann, "viktor", "white").await;
    play(&server, &v, "e4").await;
    let out = take_back(&server, &v).await;
    assert_eq!(sans(&out["state"]).len(), 2, "{out}");
    assert!(out["events"].to_string().contains("never grants a takeback"), "{out}");
    let (mg, _) = server.new_match(&ann, "margot", "white").await;
    play(&server, &mg, "d4").await;
    let out = take_back(&server, &mg).await;
    assert!(
        out["events"]
            .to_string()
            .contains("only for a move the engine calls a mistake or a blunder"),
        "{out}"
    );
    assert_eq!(out["state"]["takebacks"], 0);
    // Black, before a move of one's own: nothing to take back.
    let (b, _) = server.new_match(&ann, "pip", "black").await;
    let (status, out) = server.post(&format!("/api/matches/{b}/takeback"), json!({})).await;
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (409, Some("nothing_to_take_back")),
        "{out}"
    );
}

/// `kibitz play`: a blunder in one game comes back as a puzzle at the next
/// one's greeting, drawn in the terminal, and `/puzzle` answers it.
#[test]
fn the_terminal_offers_an_old_mistake_and_takes_its_answer() {
    let data = tempfile::tempdir().unwrap();
    let play = |fen: Option<&str>, input: &str| {
        let mut cmd = kibitz_in(data.path());
        cmd.args(["play", "--persona", "margot", "--player", "Wren", "--color", "white"])
            .env("KIBITZ_DATA_DIR", data.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        if let Some(fen) = fen {
            cmd.args(["--fen", fen]);
        }
        let mut child = cmd.spawn().unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "kibitz play failed");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    // Qxd8# mates; Qd4 hangs the queen. The review runs before play exits.
    play(Some("3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1"), "Qd4\n/resign\n");
    let text = play(None, "/puzzle Qxd8#\n/resign\n");
    assert!(text.contains("Puzzle: you played Qd4 here"), "{text}");
    assert!(text.contains("Remember") && text.contains("“Qd4”"), "{text}");
    assert!(text.contains("(puzzle solved: Qxd8#)"), "{text}");
}
