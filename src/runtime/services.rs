//! Everything a match needs, opened once at start-up: SQL, embedder, vector
//! index, personas, engine, scheduler, and the trigger pipeline.

use std::collections::HashMap;
use std::sync::Arc;

use tokio_cron_scheduler::JobScheduler;

use crate::agent::ScriptedBrain;
use crate::chess::engine::{self, Engine};
use crate::config::Config;
use crate::memory::edge::EdgeStore;
use crate::memory::embed::{EmbedError, Embedder};
use crate::memory::vector::VectorError;
use crate::memory::{MemoryError, MemoryService};
use crate::personas::{self, Persona, PersonaError};
use crate::store::{Db, StoreError};
use crate::subconscious::Subconscious;
use crate::triggers::Pipeline;

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
}

pub struct Services {
    pub config: Config,
    pub db: Db,
    pub memory: MemoryService,
    pub personas: Vec<Arc<Persona>>,
    pub engine: Arc<dyn Engine>,
    pub pipeline: Pipeline,
    pub scheduler: JobScheduler,
    by_id: HashMap<String, Arc<Persona>>,
}

impl Services {
    pub async fn open(config: Config) -> Result<Services, StartError> {
        let personas = personas::load_dir(&config.personas_dir)?;
        std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
            path: config.data_dir.display().to_string(),
            source,
        })?;
        let db = Db::connect(&config.database_url).await?;
        let embedder = Embedder::load(&config.models_dir)?;
        let path = config.vectors_dir.display().to_string();
        let index = EdgeStore::open(&config.vectors_dir).map_err(|source| StartError::Vectors { path, source })?;
        let memory = MemoryService::new(db.clone(), embedder, Arc::new(index));
        memory.sync_lore(&personas).await?;
        let repaired = memory
            .repair_index(|done, total| tracing::info!("re-indexing memories: {done}/{total}"))
            .await?;
        if repaired > 0 {
            tracing::info!("vector index repaired: {repaired} memories re-indexed from SQL");
        }
        let engine = engine::start(&config.stockfish_path).await;
        tracing::info!("persona moves come from {}", engine.name());
        let scheduler = JobScheduler::new()
            .await
            .map_err(|e| StartError::Scheduler(e.to_string()))?;
        scheduler
            .start()
            .await
            .map_err(|e| StartError::Scheduler(e.to_string()))?;
        let pipeline = Pipeline {
            db: db.clone(),
            memory: memory.clone(),
            subconscious: Subconscious::new(memory.clone(), config.recall.clone()),
            brain: Arc::new(ScriptedBrain),
        };
        let personas: Vec<Arc<Persona>> = personas.into_iter().map(Arc::new).collect();
        let by_id = personas.iter().map(|p| (p.id.clone(), p.clone())).collect();
        Ok(Services {
            config,
            db,
            memory,
            personas,
            engine,
            pipeline,
            scheduler,
            by_id,
        })
    }

    pub fn persona(&self, id: &str) -> Option<Arc<Persona>> {
        self.by_id.get(id).cloned()
    }
}
