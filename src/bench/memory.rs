//! `kibitz bench memory`: embedding throughput and latency, filtered vector
//! search latency and recall@10 at several sizes, and the write policy on
//! labelled pairs (retrieval quality is `kibitz bench recall`, played
//! through a live server). Figures are printed and written as JSON, never
//! asserted.

use std::path::PathBuf;
use std::time::Instant;

use chrono::Utc;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use super::stats::percentile;
use super::synthetic::{random_unit, synthetic_point};
use super::write_figures;
use kibitz::config::Config;
use kibitz::embed::Embedder;
use kibitz::ids::{MemoryId, PlayerId};
use kibitz::memory::edge::EdgeStore;
use kibitz::memory::vector::{IndexedMemory, SearchFilter, VectorStore};

/// What `kibitz bench memory` measures, and where it writes.
pub struct Plan {
    /// Stored-memory counts for the search benchmark.
    pub sizes: Vec<usize>,
    /// Searches timed per size.
    pub queries: usize,
    /// Labelled pairs for the write policy.
    pub pairs: PathBuf,
    /// Optimise the index before timing searches.
    pub optimize: bool,
    pub json: PathBuf,
}

pub async fn run(config: &Config, plan: Plan) -> anyhow::Result<()> {
    let Plan {
        sizes,
        queries,
        pairs,
        optimize,
        json: out,
    } = plan;
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let embedding = bench_embedding(&embedder).await?;
    let write_policy = super::policy::bench_write_policy(&embedder, &pairs, &config.memory).await?;
    let mut search = Vec::new();
    for size in sizes {
        search.push(bench_search(size, queries, optimize).await?);
    }
    println!("retrieval quality: `kibitz bench recall` plays labelled moments through a live server");
    let report = json!({
        "at": Utc::now(),
        "embedding": embedding,
        "search": search,
        "write_policy": write_policy,
    });
    write_figures(&out, &report)?;
    Ok(())
}

fn sentences(n: usize) -> Vec<String> {
    let openings = [
        "the Sicilian",
        "the French",
        "the London System",
        "the Caro-Kann",
        "the King's Gambit",
    ];
    let results = [
        "won with a late queen sacrifice",
        "lost on time in a drawn endgame",
        "drew by repetition",
    ];
    (0..n)
        .map(|i| {
            format!(
                "Player {} played {} and {} on move {}.",
                i % 97,
                openings[i % 5],
                results[i % 3],
                10 + i % 60
            )
        })
        .collect()
}

async fn bench_embedding(embedder: &Embedder) -> anyhow::Result<serde_json::Value> {
    let texts = sentences(256);
    embedder.embed_one("warm-up").await?;
    let mut latencies = Vec::new();
    let start = Instant::now();
    for t in &texts {
        let one = Instant::now();
        embedder.embed_one(t).await?;
        latencies.push(one.elapsed().as_secs_f64() * 1e3);
    }
    let batch1 = texts.len() as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    for chunk in texts.chunks(32) {
        embedder.embed(chunk.to_vec()).await?;
    }
    let batch32 = texts.len() as f64 / start.elapsed().as_secs_f64();
    let (p50, p99) = (percentile(&mut latencies, 0.5), percentile(&mut latencies, 0.99));
    println!(
        "embedding: {batch1:.0} sentences/s at batch 1, {batch32:.0} at batch 32; query p50 {p50:.2} ms, p99 {p99:.2} ms"
    );
    Ok(
        json!({ "sentences_per_s_batch1": batch1, "sentences_per_s_batch32": batch32, "query_p50_ms": p50, "query_p99_ms": p99 }),
    )
}

/// A stored point as the exact search sees it.
struct Stored {
    vector: Vec<f32>,
    player: Option<usize>,
    persona: usize,
}

const PLAYERS: usize = 1000;
const PERSONAS: [&str; 3] = ["margot", "viktor", "pip"];
/// Lore lines per persona, as in a persona file (the rest belongs to players).
const LORE_PER_PERSONA: usize = 30;

async fn bench_search(size: usize, queries: usize, optimize: bool) -> anyhow::Result<serde_json::Value> {
    let dir = tempfile::tempdir()?;
    let store = EdgeStore::open(dir.path())?;
    let mut rng = StdRng::seed_from_u64(size as u64);
    let players: Vec<PlayerId> = (0..PLAYERS).map(|_| PlayerId::new()).collect();
    let mut stored = Vec::with_capacity(size);
    let mut ids = Vec::with_capacity(size);
    let load = Instant::now();
    while stored.len() < size {
        let batch: Vec<IndexedMemory> = (0..2000.min(size - stored.len()))
            .map(|_| {
                let lore = stored.len() < LORE_PER_PERSONA * PERSONAS.len();
                let s = Stored {
                    vector: random_unit(&mut rng),
                    player: (!lore).then(|| rng.gen_range(0..PLAYERS)),
                    persona: if lore {
                        stored.len() % PERSONAS.len()
                    } else {
                        rng.gen_range(0..PERSONAS.len())
                    },
                };
                let point = synthetic_point(s.vector.clone(), s.player.map(|p| players[p]), PERSONAS[s.persona]);
                ids.push(point.id);
                stored.push(s);
                point
            })
            .collect();
        store.upsert(batch).await?;
        if stored.len() % (size / 10).max(2000) == 0 {
            eprintln!("search {size}: stored {}/{size}", stored.len());
        }
    }
    eprintln!("search {size}: loaded in {:.1} s", load.elapsed().as_secs_f64());
    let optimised = match optimize {
        true => Some(optimise_under_searches(&store, &players, &mut rng, size).await?),
        false => None,
    };
    // Warm-up: the first searches after loading or optimising fault the
    // shard's memory-mapped files in; a running server is past that.
    for _ in 0..WARM_UP_QUERIES {
        let filter = player_filter(&players, rng.gen_range(0..PLAYERS), rng.gen_range(0..PERSONAS.len()));
        store.search(random_unit(&mut rng), filter, 10).await?;
    }
    let (mut latencies, mut hits, mut expected) = (Vec::new(), 0usize, 0usize);
    for q in 0..queries {
        let query = random_unit(&mut rng);
        let (player, persona) = (rng.gen_range(0..PLAYERS), rng.gen_range(0..PERSONAS.len()));
        let filter = player_filter(&players, player, persona);
        let start = Instant::now();
        let found = store.search(query.clone(), filter, 10).await?;
        latencies.push(start.elapsed().as_secs_f64() * 1e3);
        if q < 100 {
            let exact = exact_top10(&stored, &ids, &query, player, persona);
            expected += exact.len();
            hits += found.iter().filter(|h| exact.contains(&h.id)).count();
        }
    }
    let recall = hits as f64 / expected.max(1) as f64;
    let (p50, p99) = (percentile(&mut latencies, 0.5), percentile(&mut latencies, 0.99));
    println!("search at {size}: filtered top-10 p50 {p50:.3} ms, p99 {p99:.3} ms; recall@10 vs exact {recall:.3}");
    Ok(json!({ "stored": size, "optimised": optimised, "p50_ms": p50, "p99_ms": p99, "recall_at_10": recall }))
}

/// Optimises the index while searches keep coming, as in a running server
/// (its maintenance job): how long it took, and how the searches fared.
async fn optimise_under_searches(
    store: &EdgeStore,
    players: &[PlayerId],
    rng: &mut StdRng,
    size: usize,
) -> anyhow::Result<serde_json::Value> {
    let (start, done) = (Instant::now(), std::sync::atomic::AtomicBool::new(false));
    let optimise = async {
        let result = store.maintain().await;
        done.store(true, std::sync::atomic::Ordering::Release);
        result
    };
    let search = async {
        let mut latencies = Vec::new();
        while !done.load(std::sync::atomic::Ordering::Acquire) {
            let filter = player_filter(players, rng.gen_range(0..PLAYERS), rng.gen_range(0..PERSONAS.len()));
            let asked = Instant::now();
            store.search(random_unit(rng), filter, 10).await?;
            latencies.push(asked.elapsed().as_secs_f64() * 1e3);
            tokio::task::yield_now().await;
        }
        anyhow::Ok(latencies)
    };
    let (optimised, latencies) = tokio::join!(optimise, search);
    optimised?;
    let (seconds, mut latencies) = (start.elapsed().as_secs_f64(), latencies?);
    let slowest = latencies.iter().copied().fold(0.0, f64::max);
    let p99 = if latencies.is_empty() {
        0.0
    } else {
        percentile(&mut latencies, 0.99)
    };
    eprintln!(
        "search {size}: optimised in {seconds:.1} s; {} searches answered meanwhile, p99 {p99:.2} ms, slowest {slowest:.1} ms",
        latencies.len()
    );
    Ok(json!({ "seconds": seconds, "searches_meanwhile": latencies.len(), "p99_ms": p99, "slowest_ms": slowest }))
}

const WARM_UP_QUERIES: usize = 100;

/// What the subconscious asks for: one player's memories with one persona, plus lore.
fn player_filter(players: &[PlayerId], player: usize, persona: usize) -> SearchFilter {
    SearchFilter {
        persona_id: Some(PERSONAS[persona].into()),
        player_id: Some(players[player]),
        include_lore: true,
        ..SearchFilter::default()
    }
}

fn exact_top10(stored: &[Stored], ids: &[MemoryId], query: &[f32], player: usize, persona: usize) -> Vec<MemoryId> {
    let mut scored: Vec<(f32, MemoryId)> = stored
        .iter()
        .zip(ids)
        .filter(|(s, _)| s.persona == persona && (s.player.is_none() || s.player == Some(player)))
        .map(|(s, id)| (s.vector.iter().zip(query).map(|(a, b)| a * b).sum(), *id))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(10).map(|(_, id)| id).collect()
}
