//! Everything a match needs, opened once at start-up: SQL, embedder, vector
//! index, personas, engine, scheduler, and the trigger pipeline.

use std::sync::Arc;

use std::fs::File;
use std::path::Path;

use tokio_cron_scheduler::{Job, JobScheduler};

use crate::agent::{LlmAgent, ScriptedBrain};
use crate::chess::engine::{self, Engine};
use crate::config::Config;
use crate::config::redact::redact_url;
use crate::embed::{EmbedError, Embedder};
use crate::listen;
use crate::llm::LlmPool;
use crate::memory::Scope;
use crate::memory::edge::EdgeStore;
use crate::memory::qdrant::QdrantStore;
use crate::memory::vector::{VectorError, VectorStore};
use crate::memory::watched::Watched;
use crate::memory::{MemoryError, MemoryService, ModelRecord, Reconciled};
use crate::moves::Workshop;
use crate::personas::{self, Persona, PersonaError, Roster};
use crate::store::{Backend, Db, StoreError};
use crate::subconscious::relevance::{self, SharedRelevance};
use crate::subconscious::{Subconscious, situation};
use crate::turn::Pipeline;

use super::marker::RunMarker;
use super::records::Records;
use super::{Leases, PhaseTimes};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Personas(#[from] PersonaError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error("vector index at {path}: {source}")]
    Vectors { path: String, source: VectorError },
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error("cannot create data dir {path}: {source}")]
    DataDir { path: String, source: std::io::Error },
    #[error("scheduler: {0}")]
    Scheduler(String),
    #[error(transparent)]
    Cluster(#[from] super::ClusterStartError),
    #[error("listing the unfinished matches to resume: {0}")]
    Resume(super::RuntimeError),
    #[error("{path} is in use by another kibitz process (serve or play); stop it or use another KIBITZ_DATA_DIR")]
    Locked { path: String },
}

impl StartError {
    fn marker((path, source): (std::path::PathBuf, std::io::Error)) -> StartError {
        StartError::DataDir {
            path: path.display().to_string(),
            source,
        }
    }
}

/// How often the vector index is optimised and flushed (6-field cron, seconds first).
const MAINTENANCE_CRON: &str = "0 */10 * * * *";

pub struct Services {
    pub config: Arc<Config>,
    pub db: Db,
    pub memory: MemoryService,
    /// The club's personas; an admin's import adds one while it serves.
    pub personas: Arc<Roster>,
    /// Held while a card is imported: one import at a time.
    pub(super) imports: tokio::sync::Mutex<()>,
    pub engine: Arc<dyn Engine>,
    /// A separate engine process for the deeper evaluation after each move,
    /// so it never queues in front of a persona's move.
    pub analyst: Option<Arc<dyn Engine>>,
    /// How many moves the analyst checked, and shed when behind.
    pub deep: Arc<super::DeepEvaluations>,
    /// Builds each match's move brain.
    pub moves: Workshop,
    /// The language models, if any: each match opens its own sessions.
    pub llm: Option<LlmPool>,
    pub pipeline: Pipeline,
    pub scheduler: JobScheduler,
    /// Where the matches' time goes, per phase (admin status).
    pub timings: Arc<PhaseTimes>,
    /// On PostgreSQL, this node's leases on the matches it runs (several
    /// nodes may share the database).
    pub leases: Option<Arc<Leases>>,
    /// Held for the life of the process: the vector shard is single-process.
    /// Removed at a clean shutdown (`marker.release()`).
    pub marker: RunMarker,
    _data_lock: File,
}

impl Services {
    pub async fn open(config: Config) -> Result<Services, StartError> {
        let personas = personas::load_dir(&config.personas_dir)?;
        let data_lock = lock_data_dir(&config.data_dir)?;
        let (marker, unclean) = RunMarker::claim(&config.data_dir).map_err(StartError::marker)?;
        let db = Db::connect(&config.database_url).await?;
        let leases = match db.backend() {
            Backend::Postgres => Some(Arc::new(Leases::open(&config, db.clone()).await?)),
            Backend::Sqlite => None,
        };
        let memory = open_memory(&config, db.clone(), &personas, (unclean, &marker)).await?;
        pin_situations(&memory, &config.models_dir);
        let listener = listen::SharedListener::default();
        let relevance = SharedRelevance::default();
        load_listener(&memory, &config.models_dir, (&listener, &relevance));
        let engine = engine::start(&config.stockfish_path, config.engine_workers, engine::Priority::Live).await;
        let analyst = match config.eval_deep_nodes {
            0 => None,
            _ => Some(engine::start(&config.stockfish_path, 1, engine::Priority::Spare).await),
        };
        let llm = LlmPool::start(&config.llm, Some(Arc::new(db.clone()))).await;
        match &llm {
            Some(pool) => tracing::info!("language models: {}", pool.describe()),
            None => tracing::info!("no language model configured or found: scripted agents, engine moves"),
        }
        let moves = Workshop {
            engine: engine.clone(),
            llm: llm.clone(),
            budget: config.search_budget(),
            sampling: config.llm.moves,
        };
        let agent = if llm.is_some() {
            "a language model (scripted when it fails)"
        } else {
            "the scripted brain"
        };
        for p in &personas {
            let mover = moves.persona_brain(p, None).name();
            tracing::info!("{} talks with {agent} and moves with {mover}", p.id);
        }
        let scheduler = start_scheduler(memory.clone(), &config, leases.clone()).await?;
        db.checkpoint_every(std::time::Duration::from_secs(5));
        let pipeline = Pipeline {
            db: db.clone(),
            memory: memory.clone(),
            subconscious: Subconscious::new(memory.clone(), config.recall.clone(), relevance),
            listener,
            brain: match &llm {
                Some(_) => Arc::new(LlmAgent::new()),
                None => Arc::new(ScriptedBrain),
            },
            sampling: config.llm.main,
            sub_sampling: config.llm.subconscious,
        };
        let personas = Arc::new(Roster::new(personas));
        Ok(Services {
            config: Arc::new(config),
            db,
            memory,
            personas,
            imports: tokio::sync::Mutex::default(),
            engine,
            analyst,
            deep: Arc::default(),
            moves,
            llm,
            pipeline,
            scheduler,
            timings: {
                let timings = Arc::new(PhaseTimes::default());
                tokio::spawn(timings.lag.clone().watch());
                timings
            },
            marker,
            leases,
            _data_lock: data_lock,
        })
    }

    pub fn persona(&self, id: &str) -> Option<Arc<Persona>> {
        self.personas.get(id)
    }

    /// The players' ratings and familiarity, as they stand now.
    pub fn records(&self) -> Records {
        Records::new(self.db.clone(), self.personas.clone())
    }
}

/// What a front end reads without a match: the store, the memory service
/// and the configuration, each cheap to clone (the HTTP server's parts).
#[derive(Clone)]
pub struct Shared {
    pub db: Db,
    pub memory: MemoryService,
    pub config: Arc<Config>,
}

/// SQL and memory alone, for commands that need no engine or matches.
pub struct MemoryOnly {
    pub db: Db,
    pub memory: MemoryService,
    /// Removed at a clean shutdown (`marker.release()`).
    pub marker: RunMarker,
    _data_lock: File,
}

impl MemoryOnly {
    pub async fn open(config: &Config) -> Result<MemoryOnly, StartError> {
        let personas = personas::load_dir(&config.personas_dir)?;
        let data_lock = lock_data_dir(&config.data_dir)?;
        let (marker, unclean) = RunMarker::claim(&config.data_dir).map_err(StartError::marker)?;
        let db = Db::connect(&config.database_url).await?;
        let memory = open_memory(config, db.clone(), &personas, (unclean, &marker)).await?;
        Ok(MemoryOnly {
            db,
            memory,
            marker,
            _data_lock: data_lock,
        })
    }
}

/// Loads the listener's learned weights from beside the model, or trains
/// them in the background when the model or the corpus changed; chat lines
/// are read by rules alone until then. Then recall's relevance model, which
/// is fitted on what the listener reads: chat lines recall by similarity
/// thresholds until it is there.
fn load_listener(
    memory: &MemoryService,
    models_dir: &Path,
    (listener, relevance): (&listen::SharedListener, &SharedRelevance),
) {
    let (memory, models_dir) = (memory.clone(), models_dir.to_path_buf());
    let (listener, relevance) = (listener.clone(), relevance.clone());
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        let learned = match listen::load_or_train(memory.embedder(), &models_dir).await {
            Ok((learned, trained)) => {
                if trained {
                    tracing::info!("chat listener trained in {:?}", started.elapsed());
                }
                learned
            }
            Err(e) => return tracing::warn!("chat intents by rules only: {e}"),
        };
        let _ = listener.set(learned);
        let Some(learned) = listener.get() else { return };
        let started = std::time::Instant::now();
        match relevance::load_or_train(memory.embedder(), learned, memory.readers(), &models_dir).await {
            Ok((model, trained)) => {
                if trained {
                    tracing::info!("recall relevance fitted in {:?}", started.elapsed());
                }
                let _ = relevance.chat.set(model);
            }
            Err(e) => tracing::warn!("chat recall by similarity thresholds: {e}"),
        }
        let started = std::time::Instant::now();
        match relevance::load_or_fit_board(memory.embedder(), &models_dir).await {
            Ok((model, fitted)) => {
                if fitted {
                    tracing::info!("board recall relevance fitted in {:?}", started.elapsed());
                }
                let _ = relevance.board.set(Some(model));
            }
            Err(e) => {
                tracing::warn!("board moments recall by their cues: {e}");
                let _ = relevance.board.set(None);
            }
        }
    });
}

/// Embeds the subconscious's situation sentences in the background (or
/// loads them from beside the model, where any server on this model saved
/// them), so that moves recall without running the model.
fn pin_situations(memory: &MemoryService, models_dir: &Path) {
    let (memory, cache) = (memory.clone(), situation::cache_path(models_dir));
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        match memory.pin_queries(situation::vocabulary(), &cache).await {
            Ok(0) => tracing::debug!("situation vocabulary loaded in {:?}", started.elapsed()),
            Ok(n) => tracing::info!(
                "situation vocabulary: {n} sentences embedded in {:?}",
                started.elapsed()
            ),
            Err(e) => tracing::warn!("situation vocabulary not embedded; moves embed their queries: {e}"),
        }
    });
}

/// Which embedding model made the vector index (its SHA-256), in the data dir.
pub const INDEX_MODEL_RECORD: &str = "index-model.sha256";

/// Embedder + vector index + SQL, with lore synced and the index repaired.
async fn open_memory(
    config: &Config,
    db: Db,
    personas: &[Persona],
    (unclean, marker): (bool, &RunMarker),
) -> Result<MemoryService, StartError> {
    let embedder = Embedder::load_with_threads(&config.models_dir, config.embed_threads)?;
    // A write the index misses after SQL took it leaves the marker behind.
    let index: Arc<dyn VectorStore> = Arc::new(Watched::new(open_index(config).await?, marker.missed_writes()));
    let memory = MemoryService::new(db, embedder, index, config.memory.clone());
    // Before any memory is written, so each carries its subject and
    // concepts: loaded in milliseconds from beside the model (`kibitz
    // models` trained them), or trained here once (seconds).
    let started = std::time::Instant::now();
    match memory.load_readers(&config.models_dir).await {
        Ok(true) => tracing::info!("memory readers trained in {:?}", started.elapsed()),
        Ok(false) => {}
        Err(e) => tracing::warn!("memories tagged by their words only: {e}"),
    }
    let record = match &config.qdrant_url {
        Some(_) => ModelRecord::for_collection(&config.qdrant_collection),
        None => ModelRecord::File(config.data_dir.join(INDEX_MODEL_RECORD)),
    };
    let progress = |done, total| tracing::info!("embedding memories with the new model: {done}/{total}");
    let embedded = memory.ensure_index_model(&record, progress).await?;
    if embedded > 0 {
        tracing::info!("vector index rebuilt: {embedded} memories embedded by the current model");
    }
    memory.sync_lore(personas).await?;
    let progress = |done, total| tracing::info!("checking the vector index against SQL: {done}/{total}");
    let fixed = if unclean {
        tracing::warn!("the last run did not shut down cleanly: checking every memory in the vector index");
        memory.reconcile_index(progress).await?
    } else {
        // After a clean shutdown the counts are enough to tell.
        memory.repair_index(progress).await?
    };
    if unclean || fixed != Reconciled::default() {
        tracing::info!(
            "vector index agrees with SQL ({} indexed, {} removed, {} re-flagged)",
            fixed.indexed,
            fixed.removed,
            fixed.reflagged
        );
    }
    // The check the marker asked for is done: a start failing before here
    // leaves the marker for the next one.
    marker.index_checked();
    // Start-up work (lore, repairs) is no reason to shed the first chats.
    memory.embedder().forget_recent_load();
    Ok(memory)
}

/// The embedded shard in the data dir, or a Qdrant server if one is configured.
async fn open_index(config: &Config) -> Result<Arc<dyn VectorStore>, StartError> {
    match &config.qdrant_url {
        Some(url) => {
            let store = QdrantStore::connect(url, config.qdrant_api_key.as_deref(), &config.qdrant_collection)
                .await
                .map_err(|source| StartError::Vectors {
                    path: redact_url(url),
                    source,
                })?;
            tracing::info!(
                "vector index: Qdrant server at {}, collection {}",
                redact_url(url),
                config.qdrant_collection
            );
            Ok(Arc::new(store))
        }
        None => {
            let path = config.vectors_dir.display().to_string();
            let store = EdgeStore::open(&config.vectors_dir).map_err(|source| StartError::Vectors { path, source })?;
            Ok(Arc::new(store))
        }
    }
}

/// The scheduler's internal channels drop what overflows them ("Lagged"),
/// and a dropped activation is a job that never runs: with one idle job per
/// live match, a tick may activate thousands at once (all of them after a
/// restart re-arms every match; the default, 200, lost nudges when 1,000
/// matches' jobs fell due together). Broadcast slots are small: ~40 bytes.
const SCHEDULER_CHANNEL: usize = 16_384;

async fn start_scheduler(
    memory: MemoryService,
    config: &Config,
    leases: Option<Arc<Leases>>,
) -> Result<JobScheduler, StartError> {
    let fail = |e: tokio_cron_scheduler::JobSchedulerError| StartError::Scheduler(e.to_string());
    let scheduler = JobScheduler::new_with_channel_size(SCHEDULER_CHANNEL)
        .await
        .map_err(fail)?;
    scheduler.add(maintenance_job(memory.clone())?).await.map_err(fail)?;
    let consolidate = consolidation_job(memory, &config.memory.consolidate_cron, leases.clone())?;
    scheduler.add(consolidate).await.map_err(fail)?;
    if !config.backup.cron.is_empty() {
        scheduler.add(backup_job(config, leases)?).await.map_err(fail)?;
    }
    scheduler.start().await.map_err(fail)?;
    Ok(scheduler)
}

/// A backup on the configured schedule, the oldest beyond `backup.keep`
/// deleted; with several nodes, on the one that holds the leader's role.
fn backup_job(config: &Config, leases: Option<Arc<Leases>>) -> Result<Job, StartError> {
    let cron = config.backup.cron.clone();
    let config = Arc::new(config.clone());
    Job::new_async(cron.as_str(), move |_, _| {
        let (config, leases) = (config.clone(), leases.clone());
        Box::pin(async move {
            if leases.is_some_and(|l| !l.leads()) {
                return;
            }
            match crate::backup::scheduled(&config).await {
                Ok((file, pruned)) => {
                    tracing::info!(file = %file.display(), pruned = pruned.len(), "scheduled backup written")
                }
                Err(e) => tracing::error!("scheduled backup failed: {e}"),
            }
        })
    })
    .map_err(|e| StartError::Scheduler(format!("backup.cron '{cron}': {e}")))
}

fn lock_data_dir(dir: &Path) -> Result<File, StartError> {
    let path = dir.display().to_string();
    std::fs::create_dir_all(dir).map_err(|source| StartError::DataDir {
        path: path.clone(),
        source,
    })?;
    let file = File::create(dir.join("kibitz.lock")).map_err(|source| StartError::DataDir {
        path: path.clone(),
        source,
    })?;
    // The OS releases the lock when the process dies, even by kill -9.
    file.try_lock().map_err(|_| StartError::Locked { path })?;
    Ok(file)
}

/// Optimises and flushes the vector index off the hot path.
fn maintenance_job(memory: MemoryService) -> Result<Job, StartError> {
    Job::new_async(MAINTENANCE_CRON, move |_, _| {
        let memory = memory.clone();
        Box::pin(async move {
            if let Err(e) = memory.maintain().await {
                tracing::warn!("vector index maintenance failed: {e}");
            }
        })
    })
    .map_err(|e| StartError::Scheduler(e.to_string()))
}

/// Merges, supersedes and decays memories on the configured schedule.
/// The club-wide consolidation; with several nodes, only on the one that
/// holds the role (`leases.rs`).
fn consolidation_job(memory: MemoryService, cron: &str, leases: Option<Arc<Leases>>) -> Result<Job, StartError> {
    Job::new_async(cron, move |_, _| {
        let (memory, leases) = (memory.clone(), leases.clone());
        Box::pin(async move {
            if leases.is_some_and(|l| !l.leads()) {
                return;
            }
            if let Err(e) = memory.consolidate(Scope::Everyone, "schedule").await {
                tracing::warn!("memory consolidation failed: {e}");
            }
        })
    })
    .map_err(|e| StartError::Scheduler(format!("memory.consolidate_cron '{cron}': {e}")))
}
