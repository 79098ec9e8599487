//! Several nodes, one club (PostgreSQL and a Qdrant server; `make
//! test-qdrant` runs it, skipped elsewhere): a match is served by the node
//! that holds its lease, whichever node the request reached; a node killed
//! with -9 during 100 live matches loses nothing acknowledged, its matches
//! continue on the others within the lease time, their idle nudges keep
//! one chain, and the lease history never shows two holders at once.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::club::{Club, LEASE_MS, Nginx, SECRET};
use common::{Server, eventually, ws_send, ws_until};
use serde_json::{Value, json};
use sqlx::Row;

const IDLE_SCALE: f64 = 0.05;

#[tokio::test]
async fn a_match_is_served_by_the_node_that_holds_it() {
    let Some(club) = Club::start(2, &[]).await else {
        return;
    };
    let (a, b) = (club.node(0), club.node(1));
    let player = a.new_player("Ada").await;
    let (m, _) = a.new_match(&player, "margot", "white").await;
    assert_eq!(
        club.holder(&m).await.as_deref(),
        Some("node0"),
        "the node that made it holds it"
    );

    // An HTTP command that reached the other node is relayed.
    b.know_as(a);
    let (status, out) = b
        .post(&format!("/api/matches/{m}/moves"), json!({ "move": "e4" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(
        out["state"]["moves"].as_array().unwrap().len(),
        2,
        "the persona replied: {out}"
    );

    // So is a WebSocket: its state, then a chat's words, through node1.
    let mut ws = b.ws(&m, 0).await;
    let first = ws_until(&mut ws, Duration::from_secs(10), |f| f["type"] == "state").await;
    let state = &first.last().unwrap()["data"];
    assert_eq!(state["moves"].as_array().unwrap().len(), 2);
    let before_chat = state["last_seq"].as_i64();
    ws_send(
        &mut ws,
        json!({ "type": "chat", "text": "I teach piano at the conservatory" }),
    )
    .await;
    let heard = ws_until(&mut ws, Duration::from_secs(20), |f| {
        f["type"] == "message" && f["data"]["sender"] == "persona" && f["seq"].as_i64() > before_chat
    })
    .await;
    assert!(
        heard
            .iter()
            .any(|f| f["type"] == "message" && f["data"]["sender"] == "persona"),
        "the persona answered through the relay: {heard:?}"
    );

    // Another player's token gets the holder's answer: no such match.
    let other = b.new_player("Eve").await;
    let path = format!("/api/matches/{m}/moves");
    let (status, _) = b
        .send_as(
            reqwest::Method::POST,
            &path,
            Some(&b.token(&other)),
            Some(json!({ "move": "d4" })),
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(club.holder(&m).await.as_deref(), Some("node0"), "nothing changed hands");
    let (_, state) = a.get(&format!("/api/matches/{m}")).await;
    assert!(state["last_seq"].as_i64().unwrap() >= out["state"]["last_seq"].as_i64().unwrap());

    // An erased memory's words reach the other nodes' model threads by a
    // route only the club's nodes may use.
    let forget = format!("{}/internal/forget", a.base);
    let forms = json!({ "forms": ["Ada teaches piano at the conservatory."] });
    let http = reqwest::Client::new();
    let outsider = http.post(&forget).json(&forms).send().await.unwrap();
    assert_eq!(outsider.status(), 404, "no such route for anyone else");
    let guess = http
        .post(&forget)
        .header("x-kibitz-relayed", "a-guess")
        .json(&forms)
        .send()
        .await
        .unwrap();
    assert_eq!(guess.status(), 404);
    let peer = http
        .post(&forget)
        .header("x-kibitz-relayed", SECRET)
        .json(&forms)
        .send()
        .await
        .unwrap();
    assert_eq!(peer.status(), 204);

    // A node that would serve alone is refused while the club runs.
    let alone = tempfile::tempdir().unwrap();
    let refused = common::kibitz_in(alone.path())
        .arg("serve")
        .env("KIBITZ_DATA_DIR", alone.path())
        .env("KIBITZ_DATABASE_URL", &club.database_url)
        .env("KIBITZ_LISTEN", "127.0.0.1:0")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(said.contains("already serves this database"), "{said}");
}

/// What the players were told was done, per match.
#[derive(Default)]
struct Acknowledged {
    moves: Vec<String>,
    chats: Vec<String>,
    memories: Vec<String>,
}

impl Acknowledged {
    fn take(&mut self, out: &Value) {
        self.moves = common::ucis(&out["state"]);
        for e in out["events"].as_array().into_iter().flatten() {
            if e["type"] == "memory_saved" {
                self.memories.push(e["data"]["id"].as_str().unwrap().to_string());
            }
        }
    }
}

/// A command (a GET when `body` is null), retried while the club answers
/// 503 (the match is changing hands); the answer and when it came.
async fn until_served(node: &Server, path: &str, body: Value) -> (Value, Instant) {
    for _ in 0..120 {
        let (status, out) = match body.is_null() {
            true => node.get(path).await,
            false => node.post(path, body.clone()).await,
        };
        match status {
            200 => return (out, Instant::now()),
            503 => tokio::time::sleep(Duration::from_millis(250)).await,
            _ => panic!("{path}: {status} {out}"),
        }
    }
    panic!("{path}: still unavailable after 30 s");
}

#[tokio::test]
async fn a_killed_node_s_matches_continue_on_the_others() {
    // Idle nudges every few seconds (Margot: after 3 s, 6 s, 12 s).
    let scale = IDLE_SCALE.to_string();
    let extra = [
        ("KIBITZ_IDLE_TIME_SCALE", scale.as_str()),
        ("KIBITZ_LIVE_MATCHES_PER_PLAYER", "0"),
    ];
    let Some(mut club) = Club::start(3, &extra).await else {
        return;
    };
    // 100 matches, made on each node in turn (so held by it), 2 a player.
    let (mut matches, mut personas) = (Vec::new(), HashMap::new());
    for i in 0..100 {
        let node = club.node(i % 3);
        let player = match i % 2 {
            0 => node.new_player(&format!("P{i}")).await,
            _ => {
                node.know_as(club.node((i + 2) % 3));
                matches
                    .last()
                    .map(|(_, p, _): &(String, String, usize)| p.clone())
                    .unwrap()
            }
        };
        let persona = ["margot", "viktor"][i % 2];
        let body = json!({ "player_id": player, "persona_id": persona, "color": "white" });
        let (status, out) = node.post("/api/matches", body).await;
        assert_eq!(status, 201, "{out}");
        matches.push((out["state"]["id"].as_str().unwrap().to_string(), player, i % 3));
        personas.insert(matches.last().unwrap().0.clone(), persona);
    }
    for i in 0..3 {
        for j in 0..3 {
            club.node(i).know_as(club.node(j));
        }
    }
    // A move in each through the next node (relayed), and a fact told in a third.
    let mut acked: HashMap<String, Acknowledged> = HashMap::new();
    for (k, (m, _, home)) in matches.iter().enumerate() {
        let node = club.node((home + 1) % 3);
        let (out, _) = until_served(node, &format!("/api/matches/{m}/moves"), json!({ "move": "e4" })).await;
        let ack = acked.entry(m.clone()).or_default();
        ack.take(&out);
        if k % 3 == 0 {
            let text = format!("I teach piano at the conservatory, room {k}");
            let (out, _) = until_served(node, &format!("/api/matches/{m}/chat"), json!({ "text": text })).await;
            ack.take(&out);
            ack.chats.push(text);
        }
    }

    // Node 0 dies with 34 matches in hand.
    let killed_at = Instant::now();
    club.nodes[0].as_mut().unwrap().kill();
    club.nodes[0] = None;
    let orphans: Vec<&(String, String, usize)> = matches.iter().filter(|(_, _, home)| *home == 0).collect();
    // Half of them hear from their player at once (through the survivors);
    // the others are left for the survivors to adopt.
    let mut continued = Vec::new();
    for (k, (m, _, _)) in orphans.iter().enumerate().filter(|(k, _)| k % 2 == 0) {
        let node = club.node(1 + k % 2);
        let (state, _) = until_served(node, &format!("/api/matches/{m}"), Value::Null).await;
        let next = state["legal_moves"][0]["uci"].as_str().unwrap().to_string();
        let (out, at) = until_served(node, &format!("/api/matches/{m}/moves"), json!({ "move": next })).await;
        acked.get_mut(m).unwrap().take(&out);
        continued.push(at - killed_at);
    }
    let slowest = continued.iter().max().unwrap();
    eprintln!(
        "failover: {} matches continued, the slowest after {slowest:?}",
        continued.len()
    );
    assert!(
        *slowest <= Duration::from_millis(LEASE_MS) + Duration::from_secs(5),
        "continued after {slowest:?} (lease {LEASE_MS} ms)"
    );
    // Every orphan is held by a survivor soon after the lease ran out.
    let adopted = eventually(20, || async {
        let mut all = true;
        for (m, _, _) in &orphans {
            all &= matches!(club.holder(m).await.as_deref(), Some("node1" | "node2"));
        }
        all
    })
    .await;
    assert!(adopted, "every match of the dead node has a new holder");
    // Long enough for the first two nudges of the adopted ones.
    tokio::time::sleep(Duration::from_secs(12)).await;

    let survivor = club.node(1);
    for (m, player, _) in &matches {
        let ack = &acked[m];
        let (_, state) = survivor.get(&format!("/api/matches/{m}")).await;
        let stored = common::ucis(&state);
        assert!(
            stored.starts_with(&ack.moves),
            "{m}: acknowledged {:?}, stored {stored:?}",
            ack.moves
        );
        let events = survivor.events(m).await;
        for chat in &ack.chats {
            let kept = events
                .iter()
                .any(|e| e["type"] == "message" && e["data"]["content"] == chat.as_str());
            assert!(kept, "{m}: the chat line {chat:?} is kept");
        }
        let memories: Vec<String> = survivor
            .memories(player)
            .await
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect();
        for id in &ack.memories {
            assert!(memories.contains(id), "{m}: acknowledged memory {id} is kept");
        }
        one_chain_of_nudges(survivor, m, personas[m]).await;
    }
    no_two_holders_at_once(&club).await;
}

/// The idle nudges since the player last acted come one at a time, no
/// more than the persona's cap, none within half its first delay (the
/// scheduler counts whole seconds) of the one before.
async fn one_chain_of_nudges(node: &Server, m: &str, persona: &str) {
    let card = std::fs::read_to_string(common::repo().join(format!("personas/{persona}.toml"))).unwrap();
    let idle = &card.parse::<toml::Table>().unwrap()["idle"];
    let max = idle["max_nudges"].as_integer().unwrap() as usize;
    let first = &idle["first_after_secs"];
    let first = first.as_float().or(first.as_integer().map(|s| s as f64)).unwrap() * IDLE_SCALE;
    let triggers = node.triggers(m).await;
    let since_user = triggers
        .iter()
        .rposition(|t| t["trigger"] == "on_user_move" || t["trigger"] == "on_user_input")
        .map_or(0, |i| i + 1);
    let nudges: Vec<chrono::DateTime<chrono::Utc>> = triggers[since_user..]
        .iter()
        .filter(|t| t["trigger"] == "idle_wait")
        .map(|t| t["fired_at"].as_str().unwrap().parse().unwrap())
        .collect();
    let seen: Vec<String> = triggers
        .iter()
        .map(|t| format!("{} {}", t["trigger"], t["fired_at"]))
        .collect();
    assert!(
        nudges.len() <= max,
        "{m}: {} nudges since the player acted: {seen:#?}",
        nudges.len()
    );
    for pair in nudges.windows(2) {
        let gap = (pair[1] - pair[0]).to_std().unwrap_or_default();
        assert!(
            gap >= Duration::from_secs_f64(first / 2.0),
            "{m}: two nudges {gap:?} apart: {seen:#?}"
        );
    }
}

/// From the lease history: each new holder took a match only after the
/// one before had given it up or its lease had run out.
async fn no_two_holders_at_once(club: &Club) {
    let rows = sqlx::query(
        "SELECT match_id, epoch, incarnation, acquired_ms, released_ms, previous_incarnation, previous_expires_ms \
         FROM lease_history ORDER BY match_id, epoch",
    )
    .fetch_all(&club.sql().await)
    .await
    .unwrap();
    let mut takeovers = 0;
    for pair in rows.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let m: String = after.get("match_id");
        if before.get::<String, _>("match_id") != m {
            continue;
        }
        let acquired: i64 = after.get("acquired_ms");
        match after.get::<Option<String>, _>("previous_incarnation") {
            Some(previous) => {
                assert_eq!(
                    previous,
                    before.get::<String, _>("incarnation"),
                    "{m}: taken from its last holder"
                );
                let expired: i64 = after.get::<Option<i64>, _>("previous_expires_ms").unwrap();
                assert!(
                    acquired > expired,
                    "{m}: taken {} ms before the lease ran out",
                    expired - acquired
                );
                takeovers += 1;
            }
            None => {
                let released: Option<i64> = before.get("released_ms");
                assert!(
                    released.is_some_and(|r| r <= acquired),
                    "{m}: epoch {} began while epoch {} was held",
                    after.get::<i64, _>("epoch"),
                    before.get::<i64, _>("epoch")
                );
            }
        }
    }
    assert!(
        takeovers >= 34,
        "the dead node's 34 matches were taken over ({takeovers})"
    );
}

#[tokio::test]
async fn a_club_behind_nginx_plays_as_one_server() {
    let Some(bin) = std::env::var("KIBITZ_TEST_NGINX").ok().filter(|b| !b.is_empty()) else {
        eprintln!("skipped: set KIBITZ_TEST_NGINX to nginx's path (make test-qdrant installs nginx-light)");
        return;
    };
    let Some(club) = Club::start(2, &[]).await else {
        return;
    };
    let port = common::free_port();
    let _nginx = Nginx::start(&bin, port, &[club.node(0), club.node(1)]);
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let up = eventually(10, || async {
        http.get(format!("{base}/api/health")).send().await.is_ok()
    })
    .await;
    assert!(up, "nginx answers");

    let post = |path: String, token: Option<String>, body: Value| {
        let mut req = http.post(format!("{base}{path}")).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        async move {
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (status, player) = post("/api/players".into(), None, json!({ "name": "Nell" })).await;
    assert_eq!(status, 201, "{player}");
    let token = player["token"].as_str().unwrap().to_string();
    let body = json!({ "player_id": player["id"], "persona_id": "viktor", "color": "white" });
    let (status, opened) = post("/api/matches".into(), Some(token.clone()), body).await;
    assert_eq!(status, 201, "{opened}");
    let m = opened["state"]["id"].as_str().unwrap().to_string();
    // Round-robin sends every other request to the node that does not
    // run the match: each is relayed, and the game goes on as one.
    let mut state = opened["state"].clone();
    for ply in 0..4 {
        let next = state["legal_moves"][0]["uci"].as_str().unwrap().to_string();
        let (status, out) = post(
            format!("/api/matches/{m}/moves"),
            Some(token.clone()),
            json!({ "move": next }),
        )
        .await;
        assert_eq!(status, 200, "move {ply}: {out}");
        state = out["state"].clone();
        assert_eq!(common::ucis(&state).len(), 2 * ply + 2, "{state}");
    }
    for _ in 0..2 {
        let url = format!("ws://127.0.0.1:{port}/api/matches/{m}/ws?since=0");
        let mut ws = common::ws_connect_as(&url, &token)
            .await
            .expect("a WebSocket through nginx");
        let frames = ws_until(&mut ws, Duration::from_secs(10), |f| f["type"] == "state").await;
        let shown = &frames.last().unwrap()["data"];
        assert_eq!(common::ucis(shown).len(), 8, "{shown}");
        let said = shown["last_seq"].as_i64();
        ws_send(&mut ws, json!({ "type": "chat", "text": "do you remember me?" })).await;
        let heard = ws_until(&mut ws, Duration::from_secs(20), |f| {
            f["type"] == "message" && f["data"]["sender"] == "persona" && f["seq"].as_i64() > said
        })
        .await;
        assert!(heard.iter().any(|f| f["data"]["sender"] == "persona"), "{heard:?}");
    }
}

/// A card an admin imports on one node plays on every node: each node has
/// its own personas dir (as on separate machines), the others install it
/// from SQL within a third of the lease time, a node started later
/// installs it at start, and all export the same card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persona_imported_on_one_node_plays_on_every_node() {
    const ADMIN: &str = "the-club-admin-token-for-tests";
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| common::cards::personas_copy()).collect();
    let own = |i: usize| vec![("KIBITZ_PERSONAS_DIR".to_string(), dirs[i].path().display().to_string())];
    let Some(mut club) = Club::start_each(2, &[("KIBITZ_ADMIN_TOKEN", ADMIN)], own).await else {
        return;
    };
    let card = common::cards::captain_v3_png();
    let (status, out) = common::cards::import_card(club.node(0), ADMIN, "?style=aggressive", card).await;
    assert_eq!(status, 201, "{out}");
    let seen = eventually(LEASE_MS.div_ceil(1000) * 3, || listed(club.node(1))).await;
    assert!(seen, "node1 lists the persona node0 imported");
    assert!(
        dirs[1].path().join("captain-rook.toml").is_file(),
        "installed in node1's own dir"
    );

    let ann = club.node(1).new_player("Ann").await;
    let (m, _) = club.node(1).new_match(&ann, "captain-rook", "white").await;
    let greeted = eventually(20, || async {
        let said: String = club.node(1).events(&m).await.iter().map(|e| e.to_string()).collect();
        said.contains("Ahoy, Ann!") || said.contains("Well met, Ann.")
    })
    .await;
    assert!(
        greeted,
        "the card's greeting on node1: {:?}",
        club.node(1).events(&m).await
    );

    // A node that joins later has it from its first request.
    let late = club.start_node(2, &[("KIBITZ_ADMIN_TOKEN", ADMIN)], &own(2)).await;
    assert!(listed(&late).await, "a node started later lists it at once");
    let exported = |node: &Server| {
        let url = format!("{}/api/admin/personas/captain-rook/card", node.base);
        async move {
            let r = reqwest::Client::new().get(url).bearer_auth(ADMIN).send().await.unwrap();
            assert_eq!(r.status(), 200);
            r.bytes().await.unwrap()
        }
    };
    let first = exported(club.node(0)).await;
    assert_eq!(first, exported(club.node(1)).await, "node1 holds the same persona");
    assert_eq!(first, exported(&late).await, "so does the node that joined later");
    club.nodes.push(Some(late));
}

async fn listed(node: &Server) -> bool {
    let (_, list) = node.get("/api/personas").await;
    list.as_array().unwrap().iter().any(|p| p["id"] == "captain-rook")
}
