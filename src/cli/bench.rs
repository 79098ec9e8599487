//! `kibitz bench memory`: embedding throughput and latency, filtered vector
//! search latency and recall@10 at several sizes, and the write policy on
//! labelled pairs (retrieval quality is `kibitz bench recall`, played
//! through a live server). Figures are printed and written as JSON, never
//! asserted.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use chrono::Utc;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use kibitz::config::Config;
use kibitz::ids::{MemoryId, PlayerId};
use kibitz::memory::MemoryType;
use kibitz::memory::edge::EdgeStore;
use kibitz::memory::embed::{DIMENSIONS, Embedder};
use kibitz::memory::vector::{IndexedMemory, SearchFilter, VectorStore};

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(clap::Subcommand)]
enum BenchWhat {
    /// The board tools against Lichess puzzles: the share of each theme detected.
    Tools {
        /// Lichess puzzle CSV (scripts/fetch-puzzles.sh puts it here).
        #[arg(long, default_value = "bench/data/lichess_db_puzzle.csv")]
        puzzles: PathBuf,
        #[arg(long, default_value = "bench/last-tools.json")]
        json: PathBuf,
    },
    /// The main agent's prompt size per trigger at moves 10, 40 and 80.
    Prompt {
        /// A llama.cpp server (its /tokenize) for exact token counts; else estimated.
        #[arg(long)]
        tokenizer_url: Option<String>,
        #[arg(long, default_value = "bench/last-prompt.json")]
        json: PathBuf,
    },
    /// Forgetting one memory with many other players' events in the database.
    Erasure {
        /// Other players' events to fill the database with.
        #[arg(long, default_value_t = 100_000)]
        events: usize,
        #[arg(long, default_value = "bench/last-erasure.json")]
        json: PathBuf,
    },
    /// Load: N WebSocket matches against a real server; latency, lost events, idle lateness, RSS.
    Live(super::bench_live::LiveArgs),
    /// One trigger's overhead beyond the language model, at several memory counts.
    Trigger {
        /// Stored-memory counts.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
        sizes: Vec<usize>,
        /// Triggers timed per size: a p99 of 300 is its 3rd-worst sample;
        /// of 3,000 (about 2 s of triggers), its 30th.
        #[arg(long, default_value_t = 3000)]
        fires: usize,
        #[arg(long, default_value = "bench/last-trigger.json")]
        json: PathBuf,
    },
    /// Recall quality in labelled moments played through a live server.
    Recall {
        /// Labelled moments (players, memories, moments, relevant memories).
        #[arg(long, default_value = "bench/recall_moments.json")]
        set: PathBuf,
        /// Only the cases whose id contains this.
        #[arg(long)]
        only: Option<String>,
        #[arg(long, default_value = "bench/last-recall.json")]
        json: PathBuf,
    },
    /// A language model's cost to the player's wait: the same matches with
    /// the scripted brain and with the model (the tests' llama-server
    /// unless --url), move->reply latency and per-trigger calls and tokens.
    Llm {
        /// An OpenAI-compatible endpoint up to /v1 (default: start the tests'
        /// llama-server with SmolLM2, built by scripts/llama-server.sh).
        #[arg(long)]
        url: Option<String>,
        #[arg(long, default_value_t = 3)]
        matches: usize,
        /// The player's moves per match.
        #[arg(long, default_value_t = 6)]
        moves: usize,
        /// How long the player thinks between moves (the model's words
        /// have this long to come before the board moves on).
        #[arg(long, default_value_t = 4000)]
        think_ms: u64,
        #[arg(long, default_value = "bench/last-llm.json")]
        json: PathBuf,
    },
    /// Listening: intent accuracy and what is remembered, on labelled chat lines.
    Chat {
        /// Labelled chat lines (text, intent, remember, fact).
        #[arg(long, default_value = "bench/chat_lines.json")]
        set: PathBuf,
        /// Print each fact kept or labelled.
        #[arg(long)]
        verbose: bool,
        #[arg(long, default_value = "bench/last-chat.json")]
        json: PathBuf,
    },
    /// Embedding, vector search and the write policy (recall quality: `bench recall`).
    Memory {
        /// Stored-memory counts for the search benchmark.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
        sizes: Vec<usize>,
        /// Searches timed per size.
        #[arg(long, default_value_t = 300)]
        queries: usize,
        /// Labelled pairs for the write policy (duplicate / contradicts / unrelated).
        #[arg(long, default_value = "bench/write_policy.json")]
        pairs: PathBuf,
        /// Optimise the index (build HNSW, merge segments) before timing searches.
        #[arg(long)]
        optimize: bool,
        /// Where to write the figures as JSON.
        #[arg(long, default_value = "bench/last-memory.json")]
        json: PathBuf,
    },
}

pub async fn run(config: &Config, args: BenchArgs) -> anyhow::Result<()> {
    if let BenchWhat::Tools { puzzles, json } = &args.what {
        return super::bench_tools::run(puzzles, json);
    }
    if let BenchWhat::Live(live) = args.what {
        return super::bench_live::run(config, live).await;
    }
    if let BenchWhat::Trigger { sizes, fires, json } = &args.what {
        return super::bench_trigger::run(config, sizes, *fires, json).await;
    }
    if let BenchWhat::Erasure { events, json } = &args.what {
        return super::bench_erasure::run(*events, json).await;
    }
    if let BenchWhat::Recall { set, only, json } = &args.what {
        return super::bench_recall::run(config, set, only.as_deref(), json).await;
    }
    if let BenchWhat::Llm {
        url,
        matches,
        moves,
        think_ms,
        json,
    } = &args.what
    {
        let plan = super::bench_llm::Plan {
            matches: *matches,
            moves: *moves,
            think: std::time::Duration::from_millis(*think_ms),
        };
        return super::bench_llm::run(config.clone(), url.clone(), plan, json).await;
    }
    if let BenchWhat::Chat { set, verbose, json } = &args.what {
        return super::bench_chat::run(config, set, json, *verbose).await;
    }
    if let BenchWhat::Prompt { tokenizer_url, json } = &args.what {
        return super::bench_prompt::run(config, tokenizer_url.as_deref(), json).await;
    }
    let BenchWhat::Memory {
        sizes,
        queries,
        pairs,
        optimize,
        json: out,
    } = args.what
    else {
        unreachable!("handled above")
    };
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    let embedding = bench_embedding(&embedder).await?;
    let write_policy = super::bench_policy::bench_write_policy(&embedder, &pairs, &config.memory).await?;
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

pub(super) fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)]
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

/// A stored point with no SQL row behind it, for filling an index.
pub(super) fn synthetic_point(vector: Vec<f32>, player: Option<PlayerId>, persona: &str) -> IndexedMemory {
    IndexedMemory {
        id: MemoryId::new(),
        vector,
        player_id: player,
        persona_id: persona.into(),
        memory_type: MemoryType::PlayerObservation,
        match_id: None,
        created_at: Utc::now().timestamp(),
        recallable: true,
        position_key: None,
        eco: None,
        tags: Vec::new(),
        line: Vec::new(),
        text: Default::default(),
    }
}

pub(super) fn random_unit(rng: &mut StdRng) -> Vec<f32> {
    // Sums of uniforms are close enough to Gaussian for direction sampling.
    let mut v: Vec<f32> = (0..DIMENSIONS)
        .map(|_| (0..4).map(|_| rng.r#gen::<f32>() - 0.5).sum())
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
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

/// Writes a benchmark's figures as pretty JSON (making its folder) and says where.
pub(super) fn write_figures(out: &Path, report: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(out, serde_json::to_string_pretty(report)?).with_context(|| format!("writing {}", out.display()))?;
    println!("figures written to {}", out.display());
    Ok(())
}
