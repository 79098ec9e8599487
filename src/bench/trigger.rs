//! `kibitz bench trigger`: the overhead of one `on_user_move` trigger, from
//! the user's move to the persona's actions persisted and pushed: the trigger
//! event, the subconscious's recall (query embedding, filtered vector search,
//! SQL), the scripted brain, the actions and the trigger log. The language
//! model is left out on purpose (scripted brain). The query embedding's share
//! is reported apart, since its cost does not depend on how much is stored.
//!
//! The index holds `size` memories over 1,000 players; the benchmark's player
//! owns its share of them as real SQL rows with real embeddings, the others
//! are random points (they only make the filtered search work harder).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use chrono::Utc;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::sync::broadcast;

use super::stats::percentile;
use super::synthetic::{random_unit, synthetic_point};
use kibitz::agent::ScriptedBrain;
use kibitz::chess::Game;
use kibitz::config::Config;
use kibitz::embed::Embedder;
use kibitz::events::Emitter;
use kibitz::ids::{MatchId, PlayerId};
use kibitz::memory::edge::EdgeStore;
use kibitz::memory::vector::{IndexedMemory, VectorStore};
use kibitz::memory::{CreatedBy, MemoryService, MemoryType, NewMemory};
use kibitz::personas::{self, Persona};
use kibitz::store::{Db, NewMatch};
use kibitz::subconscious::{RecallState, Subconscious};
use kibitz::triggers::{ContextParts, GameContext, MatchHistory, Trigger, TriggerKind};
use kibitz::turn::{MatchSide, Pipeline};

const PLAYERS: usize = 1000;
const WARM_UP: usize = 20;

/// One size's figures, in milliseconds.
struct Timings {
    total: Vec<f64>,
    embedding: Vec<f64>,
    beyond: Vec<f64>,
    /// Whole memory saves (embedding, write policy, SQL, index write + flush).
    saves: Vec<f64>,
    /// Per step beyond the embedding: announce, recall, brain, actions, log,
    /// and the wait until all of it is committed and pushed.
    phases: [Vec<f64>; 6],
}

const PHASES: [&str; 6] = ["announce", "recall", "brain", "actions", "log", "commit"];

/// Memory saves timed per size: they are off the move path but not free.
const SAVES: usize = 30;

pub async fn run(config: &Config, sizes: &[usize], fires: usize, out: &Path) -> anyhow::Result<()> {
    let mut results = Vec::new();
    for &size in sizes {
        let mut t = bench_size(config, size, fires).await?;
        let (p50, p99) = (percentile(&mut t.total, 0.5), percentile(&mut t.total, 0.99));
        let (e50, e99) = (percentile(&mut t.embedding, 0.5), percentile(&mut t.embedding, 0.99));
        let (b50, b99) = (percentile(&mut t.beyond, 0.5), percentile(&mut t.beyond, 0.99));
        let (s50, s99) = (percentile(&mut t.saves, 0.5), percentile(&mut t.saves, 0.99));
        println!(
            "trigger at {size} memories: total p50 {p50:.2} ms p99 {p99:.2} ms; \
             query embedding p50 {e50:.2} p99 {e99:.2}; everything beyond it p50 {b50:.2} p99 {b99:.2}; \
             a memory save p50 {s50:.2} p99 {s99:.2}"
        );
        let mut phases = serde_json::Map::new();
        let mut line = String::new();
        for (name, samples) in PHASES.iter().zip(t.phases.iter_mut()) {
            let (p50, p99) = (percentile(samples, 0.5), percentile(samples, 0.99));
            line += &format!(" {name} {p50:.2}/{p99:.2}");
            phases.insert(name.to_string(), json!({ "p50_ms": p50, "p99_ms": p99 }));
        }
        println!("  beyond the embedding, p50/p99 ms:{line}");
        results.push(json!({
            "phases_beyond_embedding": phases,
            "memories": size, "fires": fires,
            "total_p50_ms": p50, "total_p99_ms": p99,
            "embedding_p50_ms": e50, "embedding_p99_ms": e99,
            "beyond_embedding_p50_ms": b50, "beyond_embedding_p99_ms": b99,
            "memory_save_p50_ms": s50, "memory_save_p99_ms": s99,
        }));
    }
    let report = json!({ "at": Utc::now(), "trigger": "on_user_move", "brain": "scripted", "sizes": results });
    crate::bench::write_figures(out, &report)?;
    Ok(())
}

async fn bench_size(config: &Config, size: usize, fires: usize) -> anyhow::Result<Timings> {
    let dir = tempfile::tempdir()?;
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("bench.db").display())).await?;
    // As the server does: checkpoints stay off the trigger's path.
    db.checkpoint_every(std::time::Duration::from_secs(5));
    let index = Arc::new(EdgeStore::open(&dir.path().join("vectors"))?);
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let memory = MemoryService::new(db.clone(), embedder, index.clone(), config.memory.clone());
    // As the server does at start: moves recall without running the model.
    let cache = kibitz::subconscious::situation::cache_path(&config.models_dir);
    memory
        .pin_queries(kibitz::subconscious::situation::vocabulary(), &cache)
        .await?;
    let persona = personas::load_dir(&config.personas_dir)?
        .into_iter()
        .next()
        .context("no persona to benchmark with")?;
    memory.sync_lore(std::slice::from_ref(&persona)).await?;

    let player = db.create_player("Bench", "bench-token-hash").await?;
    let own = (size / PLAYERS).max(10);
    fill_own(&memory, player.id, &persona, own).await?;
    fill_others(index.as_ref(), size.saturating_sub(own), size as u64).await?;
    eprintln!("trigger {size}: stored; optimising the index");
    index.maintain().await?;

    let pipeline = Pipeline {
        db: db.clone(),
        memory: memory.clone(),
        subconscious: Subconscious::new(memory.clone(), config.recall.clone(), board_model()?),
        listener: Default::default(),
        brain: Arc::new(ScriptedBrain),
        sampling: config.llm.main,
        sub_sampling: config.llm.subconscious,
    };
    let match_id = MatchId::new();
    let game = Game::new(None)?;
    db.insert_match(&NewMatch {
        id: match_id,
        player_id: player.id,
        persona_id: persona.id.clone(),
        user_color: "white",
        start_fen: game.start_fen().to_string(),
        emotion: persona.default_emotion().to_string(),
        utc_offset_minutes: None,
        persona_elo: 1500,
        adapted: false,
        calibrated: true,
    })
    .await?;
    let mut timings = fire_many(&pipeline, &memory, &persona, (match_id, player.id), game, fires).await?;
    timings.saves = time_saves(&memory, player.id, &persona).await?;
    Ok(timings)
}

async fn time_saves(memory: &MemoryService, player: PlayerId, persona: &Persona) -> anyhow::Result<Vec<f64>> {
    let mut saves = Vec::new();
    for i in 0..SAVES {
        let text = format!("Bench said his sister number {i} plays the Najdorf.");
        let started = Instant::now();
        save_one(memory, player, persona, text).await?;
        saves.push(started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(saves)
}

/// The benchmark player's own memories: real text, real embeddings, SQL rows.
async fn fill_own(memory: &MemoryService, player: PlayerId, persona: &Persona, n: usize) -> anyhow::Result<()> {
    let topics = [
        "the Sicilian",
        "endgames",
        "time trouble",
        "the London System",
        "his cat",
        "blitz",
    ];
    for i in 0..n {
        let content = format!(
            "Bench mentioned {} in game {} (note {i}).",
            topics[i % topics.len()],
            i / 7
        );
        save_one(memory, player, persona, content).await?;
    }
    Ok(())
}

async fn save_one(memory: &MemoryService, player: PlayerId, persona: &Persona, content: String) -> anyhow::Result<()> {
    let new = NewMemory {
        player_id: player,
        persona_id: persona.id.clone(),
        memory_type: MemoryType::PlayerObservation,
        content,
        related_match_id: None,
        created_by: CreatedBy::MainAgent,
        metadata: json!({}),
        importance: 0.5,
        position: None,
    };
    memory.save(new).await?;
    Ok(())
}

/// Everyone else's memories: random points, spread over the other players.
async fn fill_others(index: &dyn VectorStore, n: usize, seed: u64) -> anyhow::Result<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let players: Vec<PlayerId> = (1..PLAYERS).map(|_| PlayerId::new()).collect();
    let mut stored = 0;
    while stored < n {
        let batch: Vec<IndexedMemory> = (0..2000.min(n - stored))
            .map(|_| {
                let player = players[rng.gen_range(0..players.len())];
                synthetic_point(random_unit(&mut rng), Some(player), "margot")
            })
            .collect();
        stored += batch.len();
        index.upsert(batch).await?;
        if stored % (n / 10).max(2000) < 2000 {
            eprintln!("trigger: stored {stored}/{n} other players' memories");
        }
    }
    Ok(())
}

/// Plays random moves and fires `on_user_move` after each, timing each fire.
async fn fire_many(
    pipeline: &Pipeline,
    memory: &MemoryService,
    persona: &Persona,
    (match_id, player): (MatchId, PlayerId),
    mut game: Game,
    fires: usize,
) -> anyhow::Result<Timings> {
    let (tx, _rx) = broadcast::channel(1024);
    let mut emitter = Emitter::new(pipeline.db.clone(), match_id, 0, tx);
    let mut recall = RecallState::default();
    let history = MatchHistory::default();
    let mut rng = StdRng::seed_from_u64(7);
    let mut t = Timings {
        total: vec![],
        embedding: vec![],
        beyond: vec![],
        saves: vec![],
        phases: Default::default(),
    };
    for i in 0..fires + WARM_UP {
        if game.end().is_some() {
            game = Game::new(None)?;
        }
        let legal = game.legal_moves();
        let (uci, _) = &legal[rng.gen_range(0..legal.len())];
        game.play(game.parse(uci)?);
        let parts = ContextParts {
            match_id,
            player_id: player,
            player_name: "Bench",
            persona_id: &persona.id,
            persona_elo: persona.elo,
            user_color: shakmaty::Color::White,
            started_at: Utc::now(),
            history: &history,
            odds: &[],
        };
        let ctx = GameContext::build(parts, &game);
        let side = MatchSide {
            persona,
            emotion: persona.default_emotion(),
            recall: &mut recall,
            emitter: &mut emitter,
            llm: None,
            sub_llm: None,
        };
        let embedded_before = memory.embedding_busy();
        let started = Instant::now();
        let outcome = pipeline.fire(Trigger::new(TriggerKind::OnUserMove), &ctx, side).await?;
        let fired = Instant::now();
        emitter.settle().await?;
        let commit = fired.elapsed();
        let total = started.elapsed().as_secs_f64() * 1e3;
        let embedding = (memory.embedding_busy() - embedded_before).as_secs_f64() * 1e3;
        if i >= WARM_UP {
            let p = outcome.phases;
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            let steps = [
                ms(p.announce),
                ms(p.recall) - embedding,
                ms(p.brain),
                ms(p.actions),
                ms(p.log),
                ms(commit),
            ];
            for (samples, value) in t.phases.iter_mut().zip(steps) {
                samples.push(value);
            }
            t.total.push(total);
            t.embedding.push(embedding);
            t.beyond.push(total - embedding);
        }
    }
    Ok(t)
}

/// The board model the server would load, fitted on the shipped traces, so
/// the triggers at the board weigh their candidates as they do live.
fn board_model() -> anyhow::Result<kibitz::subconscious::relevance::SharedRelevance> {
    use kibitz::subconscious::relevance::{self, board::BoardRelevance};
    let shared = relevance::SharedRelevance::default();
    let traces = relevance::board_traces(&relevance::BOARD_TRACES)?;
    let _ = shared.board.set(Some(BoardRelevance::fit(&traces)));
    Ok(shared)
}
