//! The subconscious on a language model, driven by a scripted model (as
//! rig's scripted completion model drives agents): it is told the moment's
//! concepts, its searches may ask for memories by concept tag and get only
//! those, and it can hand over only what a search showed it. The memory
//! service under it is the real one (SQLite, qdrant-edge, the MiniLM model).

mod common;

use std::sync::Arc;

use serde_json::json;

use kibitz::chess::Game;
use kibitz::config::{MemoryConfig, RecallConfig, RoleConfig};
use kibitz::embed::Embedder;
use kibitz::ids::{MatchId, PlayerId};
use kibitz::llm::{Role, ScriptedModel};
use kibitz::memory::edge::EdgeStore;
use kibitz::memory::{CreatedBy, MemoryService, MemoryType, NewMemory};
use kibitz::store::Db;
use kibitz::subconscious::{RecallState, Subconscious};
use kibitz::triggers::{ContextParts, GameContext, MatchHistory, Trigger, TriggerKind};

async fn memory_service(dir: &std::path::Path) -> (MemoryService, PlayerId) {
    let db = Db::connect(&format!("sqlite://{}", dir.join("kibitz.db").display()))
        .await
        .unwrap();
    let player = db.create_player("Ann", "hash-ann").await.unwrap().id;
    let index = Arc::new(EdgeStore::open(&dir.join("vectors")).unwrap());
    let models = common::repo().join("models");
    // As `kibitz` does at start-up: fastembed loads ONNX Runtime from here.
    // SAFETY: the only test of this binary, set before any thread reads it.
    unsafe { std::env::set_var("ORT_DYLIB_PATH", kibitz::embed::ort_library(&models)) };
    let embedder = Embedder::load_with_threads(&models, 1).expect("models provisioned by `make models`");
    (MemoryService::new(db, embedder, index, MemoryConfig::default()), player)
}

async fn remember(memory: &MemoryService, player: PlayerId, kind: MemoryType, text: &str) -> String {
    let saved = memory
        .save(NewMemory {
            player_id: player,
            persona_id: "pip".into(),
            memory_type: kind,
            content: text.into(),
            related_match_id: None,
            created_by: CreatedBy::MainAgent,
            metadata: json!({}),
            importance: 0.5,
            position: None,
        })
        .await
        .unwrap();
    saved.memory.id.to_string()
}

/// Ann (White) against Pip after 1. e4 e5 2. Nf3 Nc6 3. Bc4.
fn italian(player: PlayerId) -> GameContext {
    let mut game = Game::new(None).unwrap();
    for san in ["e4", "e5", "Nf3", "Nc6", "Bc4"] {
        let m = game.parse(san).unwrap();
        game.play(m);
    }
    let history = MatchHistory::default();
    let parts = ContextParts {
        match_id: MatchId::new(),
        player_id: player,
        player_name: "Ann",
        persona_id: &"pip".into(),
        persona_elo: 1200,
        user_color: shakmaty::Color::White,
        started_at: chrono::Utc::now(),
        history: &history,
        odds: &[],
    };
    GameContext::build(parts, &game)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_searches_by_concept_and_hands_over_only_what_it_saw() {
    let dir = tempfile::tempdir().unwrap();
    let (memory, ann) = memory_service(dir.path()).await;
    let fork = remember(
        &memory,
        ann,
        MemoryType::Pattern,
        "Ann lost her queen to a knight fork on move 18.",
    )
    .await;
    let italian_memory = remember(
        &memory,
        ann,
        MemoryType::PlayerBehavior,
        "Ann loves the Italian Game and its quiet lines.",
    )
    .await;
    let nurse = remember(
        &memory,
        ann,
        MemoryType::PlayerObservation,
        "Ann told me: \"I work as a nurse\"",
    )
    .await;

    // A query that means nothing in particular: the tag does the choosing.
    let search = json!({ "query": "Ann", "tags": ["opening:italian-game"] }).to_string();
    let provide = json!({ "memories": [
        { "id": italian_memory, "reason": "her Italian again" },
        { "id": nurse, "reason": "no search showed this one" },
    ]})
    .to_string();
    let model = ScriptedModel::new()
        .then_call("search_memories", &search)
        .then_call("provide", &provide);
    let subconscious = Subconscious::new(memory, RecallConfig::default(), Default::default());
    let sampling = RoleConfig {
        temperature: 0.0,
        max_tokens: 200,
    };
    let recall = subconscious
        .recall_with(
            &Trigger::new(TriggerKind::OnUserMove),
            &italian(ann),
            &mut RecallState::default(),
            Some((&model, sampling)),
            "Pip",
        )
        .await
        .unwrap();

    let requests = model.requests();
    assert_eq!(requests.len(), 2, "a search, then the choice");
    let situation = &requests[0].messages[1].content;
    assert!(
        situation.contains("opening:italian-game"),
        "the model is told the moment's concepts: {situation}"
    );
    let results = requests[1]
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .expect("the search's results come back as a tool message");
    assert!(results.contains(&italian_memory), "{results}");
    assert!(
        !results.contains(&fork) && !results.contains(&nurse),
        "a tag search returns only memories with the tag: {results}"
    );
    let handed: Vec<(String, String)> = recall
        .memories
        .iter()
        .map(|r| (r.memory.id.to_string(), r.why.clone()))
        .collect();
    assert_eq!(handed, [(italian_memory, "her Italian again".to_string())]);
}
