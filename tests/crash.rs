//! Crash safety: two players play and chat and review memories while the
//! server is killed with SIGKILL at random moments, then restarted, again and
//! again. After every restart: each move, chat message, memory, pin and
//! erasure the API acknowledged is as acknowledged; unfinished matches are
//! live again and their idle timers fire; SQL and the vector index agree.
//!
//! `cargo test --test crash` runs 20 cycles; `-- --cycles N` runs N.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-the-crash-test";
const DEFAULT_CYCLES: usize = 20;

/// What the API acknowledged, so what must survive.
#[derive(Default, Clone)]
struct Ledger {
    /// Per match, the moves (UCI) in the last acknowledged state.
    moves: BTreeMap<String, Vec<String>>,
    /// Per match, chat texts answered with 200.
    chats: BTreeMap<String, Vec<String>>,
    /// Memories a listing showed, minus the erased.
    memories: BTreeMap<String, String>,
    erased: BTreeSet<String>,
    /// Erasures sent but not acknowledged: the kill may have come after the
    /// commit, so these may be gone or not.
    erasing: BTreeSet<String>,
    /// What erased (or erasing) memories said: a chat line one of them was
    /// made from is forgotten with it.
    forgotten: Vec<String>,
    pinned: BTreeSet<String>,
}

fn cycles() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--cycles")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(DEFAULT_CYCLES)
}

fn main() {
    let cycles = cycles();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(cycles));
}

async fn run(cycles: usize) {
    let mut server = Server::start_with(&[
        ("KIBITZ_ADMIN_TOKEN", ADMIN),
        ("KIBITZ_IDLE_TIME_SCALE", "0.03"),
        ("KIBITZ_CHAT_PER_MINUTE", "100000"),
        ("KIBITZ_MEMORY_WRITES_PER_MINUTE", "100000"),
    ])
    .await;
    let players = [server.new_player("Ada").await, server.new_player("Ben").await];
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let started = Instant::now();
    for cycle in 0..cycles {
        let mut rng = StdRng::seed_from_u64(cycle as u64);
        let shared = Arc::new(server);
        let workers: Vec<_> = players
            .iter()
            .enumerate()
            .map(|(i, p)| tokio::spawn(work(shared.clone(), p.clone(), ledger.clone(), cycle * 2 + i)))
            .collect();
        tokio::time::sleep(Duration::from_millis(rng.gen_range(300..2000))).await;
        for w in &workers {
            w.abort();
        }
        for w in workers {
            let _ = w.await;
        }
        server = Arc::into_inner(shared).expect("the workers are gone");
        server.kill();
        let restarted_at = chrono::Utc::now();
        server.launch().await;
        let l = ledger.lock().unwrap().clone();
        check(&server, &players, &l, restarted_at).await;
        let moves: usize = l.moves.values().map(Vec::len).sum();
        eprintln!(
            "crash cycle {}/{cycles}: killed and restarted; {moves} moves, {} chats, {} memories, {} erased, {} pinned hold ({:.0} s)",
            cycle + 1,
            l.chats.values().map(Vec::len).sum::<usize>(),
            l.memories.len(),
            l.erased.len(),
            l.pinned.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let l = ledger.lock().unwrap();
    assert!(
        l.moves.values().map(Vec::len).sum::<usize>() >= cycles,
        "the workload made too few moves to mean much"
    );
    assert!(!l.memories.is_empty() && !l.chats.is_empty());
}

/// One player's workload until aborted: moves, chat, pins, erasures.
async fn work(server: Arc<Server>, player: String, ledger: Arc<Mutex<Ledger>>, seed: usize) {
    let mut rng = StdRng::seed_from_u64(1000 + seed as u64);
    let token = server.token(&player);
    loop {
        let m = current_match(&server, &player, &ledger).await;
        let (status, state) = server.get(&format!("/api/matches/{m}")).await;
        if status != 200 {
            continue;
        }
        match rng.gen_range(0..10) {
            0..=4 => {
                let legal = state["legal_moves"].as_array().cloned().unwrap_or_default();
                if legal.is_empty() || state["your_turn"] != true {
                    continue;
                }
                let uci = legal[rng.gen_range(0..legal.len())]["uci"]
                    .as_str()
                    .unwrap()
                    .to_string();
                let (status, out) = server
                    .post(&format!("/api/matches/{m}/moves"), json!({ "move": uci }))
                    .await;
                if status == 200 {
                    ledger.lock().unwrap().moves.insert(m.clone(), ucis(&out["state"]));
                }
            }
            5..=6 => {
                let text = format!(
                    "My cousin {} lives in town number {}",
                    player,
                    rng.gen_range(0..100_000)
                );
                let (status, _) = server
                    .post(&format!("/api/matches/{m}/chat"), json!({ "text": text }))
                    .await;
                if status == 200 {
                    ledger.lock().unwrap().chats.entry(m.clone()).or_default().push(text);
                }
            }
            _ => review(&server, &player, &token, &ledger, &mut rng).await,
        }
    }
}

/// Lists the player's memories (acknowledging them), then pins or erases one.
async fn review(server: &Server, player: &str, token: &str, ledger: &Mutex<Ledger>, rng: &mut StdRng) {
    let (status, list) = server.get_as(&format!("/api/players/{player}/memories"), token).await;
    if status != 200 {
        return;
    }
    let list = list.as_array().cloned().unwrap_or_default();
    let owned: Vec<&Value> = list.iter().filter(|m| m["created_by"] != "persona_lore").collect();
    {
        let mut l = ledger.lock().unwrap();
        for m in &owned {
            let id = m["id"].as_str().unwrap().to_string();
            if !l.erased.contains(&id) {
                l.memories.insert(id, m["content"].as_str().unwrap().to_string());
            }
        }
    }
    let Some(pick) = (!owned.is_empty()).then(|| owned[rng.gen_range(0..owned.len())]) else {
        return;
    };
    let id = pick["id"].as_str().unwrap().to_string();
    let path = format!("/api/memories/{id}");
    if rng.gen_bool(0.3) {
        {
            let mut l = ledger.lock().unwrap();
            l.erasing.insert(id.clone());
            l.forgotten
                .push(pick["content"].as_str().unwrap_or_default().to_string());
        }
        let (status, _) = server.send_as(Method::DELETE, &path, Some(token), None).await;
        if status == 204 {
            let mut l = ledger.lock().unwrap();
            l.memories.remove(&id);
            l.pinned.remove(&id);
            l.erased.insert(id);
        }
    } else {
        let body = Some(json!({ "pinned": true }));
        let (status, _) = server.send_as(Method::PATCH, &path, Some(token), body).await;
        if status == 200 {
            ledger.lock().unwrap().pinned.insert(id);
        }
    }
}

/// The player's unfinished match, or a new one.
async fn current_match(server: &Server, player: &str, ledger: &Mutex<Ledger>) -> String {
    let (_, list) = server.get(&format!("/api/players/{player}/matches")).await;
    let active = list
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["status"] == "active")
        .and_then(|m| m["id"].as_str().map(str::to_string));
    if let Some(m) = active {
        return m;
    }
    let (m, out) = server.new_match(player, "margot", "white").await;
    ledger.lock().unwrap().moves.insert(m.clone(), ucis(&out["state"]));
    m
}

async fn check(server: &Server, players: &[String], l: &Ledger, restarted_at: chrono::DateTime<chrono::Utc>) {
    for (m, acknowledged) in &l.moves {
        let (status, state) = server.get(&format!("/api/matches/{m}")).await;
        assert_eq!(status, 200, "{state}");
        let now = ucis(&state);
        assert!(
            now.starts_with(acknowledged),
            "match {m} lost moves: had {acknowledged:?}, now {now:?}"
        );
    }
    for (m, texts) in &l.chats {
        let events = server.events(m).await;
        let said: BTreeSet<&str> = events
            .iter()
            .filter(|e| e["type"] == "message" && e["data"]["sender"] == "user")
            .filter_map(|e| e["data"]["content"].as_str())
            .collect();
        for t in texts {
            // A memory is the chat's fact in other words ("Ann's cousin <id>
            // lives in ..."): the line's id, its longest word, ties them.
            let id = t.split_whitespace().max_by_key(|w| w.len()).unwrap_or(t);
            let forgotten = l.forgotten.iter().any(|f| f.contains(id));
            assert!(
                said.contains(t.as_str()) || forgotten,
                "match {m} lost the chat message {t:?}"
            );
        }
    }
    for player in players {
        let token = server.token(player);
        let (status, list) = server
            .get_as(&format!("/api/players/{player}/memories?superseded=true"), &token)
            .await;
        assert_eq!(status, 200);
        let present: BTreeMap<&str, &Value> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["id"].as_str().unwrap(), m))
            .collect();
        for (id, content) in l.memories.iter() {
            let Some(m) = present.get(id.as_str()) else {
                if l.erasing.contains(id) {
                    continue;
                }
                // Another player's memory, or lost: the owner's listing decides.
                let (status, _) = server.get_as(&format!("/api/memories/{id}"), ADMIN).await;
                assert_eq!(status, 200, "the memory {id} ({content:?}) was lost");
                continue;
            };
            assert_eq!(m["content"].as_str(), Some(content.as_str()));
            if l.pinned.contains(id) {
                assert_eq!(m["pinned"], true, "the pin on {id} was lost");
            }
        }
        for id in &l.erased {
            assert!(!present.contains_key(id.as_str()), "the erased memory {id} came back");
        }
    }
    let (status, s) = server.get_as("/api/admin/status", ADMIN).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        s["memories_sql"], s["memories_index"],
        "SQL and the vector index disagree: {s}"
    );
    idle_timers_rearmed(server, l, restarted_at).await;
}

/// A live match waiting for the player nudges them again after the restart.
async fn idle_timers_rearmed(server: &Server, l: &Ledger, restarted_at: chrono::DateTime<chrono::Utc>) {
    for m in l.moves.keys() {
        let (_, state) = server.get(&format!("/api/matches/{m}")).await;
        if state["status"] != "active" || state["your_turn"] != true {
            continue;
        }
        let nudged = eventually(20, || async {
            server.triggers(m).await.iter().any(|t| {
                t["trigger"] == "idle_wait"
                    && t["fired_at"]
                        .as_str()
                        .and_then(|f| f.parse::<chrono::DateTime<chrono::Utc>>().ok())
                        .is_some_and(|f| f > restarted_at)
            })
        })
        .await;
        assert!(nudged, "match {m}: no idle_wait after the restart");
        return;
    }
}
