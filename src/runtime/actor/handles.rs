//! What a match actor reaches of the node, and nothing more: a few typed
//! handles, each cheap to clone, and the slice of the configuration it
//! reads. The runtime builds them once (`MatchHandles::of`); the actor
//! never sees the node's other services (the roster's imports, the
//! scheduler's jobs, the run marker).

use std::sync::Arc;
use std::time::Duration;

use tokio_cron_scheduler::JobScheduler;

use crate::chess::engine::Engine;
use crate::config::{Config, RoleConfig};
use crate::memory::MemoryService;
use crate::runtime::records::Records;
use crate::runtime::{Leases, PhaseTimes, Services};
use crate::store::Db;
use crate::turn::Pipeline;

#[derive(Clone)]
pub struct MatchHandles {
    /// The match's rows and its journal of events.
    pub db: Db,
    pub memory: MemoryService,
    /// A trigger's turn: the subconscious, the main agent, the actions.
    pub pipeline: Pipeline,
    pub engines: Engines,
    /// Where the idle timers run.
    pub scheduler: JobScheduler,
    pub timings: Arc<PhaseTimes>,
    /// On PostgreSQL, this node's leases: a match whose lease lapsed stops.
    pub leases: Option<Arc<Leases>>,
    /// The player's rating and familiarity, brought up to date.
    pub records: Records,
    pub settings: Arc<MatchSettings>,
}

/// The engine processes a match evaluates with (its moves are its brain's).
#[derive(Clone)]
pub struct Engines {
    /// The shallow evaluation of each move, shared with the personas' moves.
    pub play: Arc<dyn Engine>,
    /// The deeper evaluation after each move, off the reply (none if
    /// `eval_deep_nodes` is 0).
    pub analyst: Option<Arc<dyn Engine>>,
    /// The analyst's books: a move waits for it, or is shed.
    pub deep: Arc<crate::runtime::DeepEvaluations>,
}

/// The configuration a match reads.
#[derive(Debug, Clone)]
pub struct MatchSettings {
    pub max_chat_chars: usize,
    /// How long the shallow evaluation of a move may take.
    pub eval_budget: Duration,
    pub eval_nodes: u64,
    pub eval_deep_nodes: u64,
    /// The personas' idle delays are multiplied by this (tests and benches).
    pub idle_time_scale: f64,
    /// How long a chat line's reply, and words about the board, may wait
    /// for the language model.
    pub chat_deadline: Duration,
    pub words_deadline: Duration,
    /// Sampling for the retold reflection.
    pub reflection_sampling: RoleConfig,
}

impl MatchHandles {
    pub fn of(svc: &Services) -> MatchHandles {
        MatchHandles {
            db: svc.db.clone(),
            memory: svc.memory.clone(),
            pipeline: svc.pipeline.clone(),
            engines: Engines {
                play: svc.engine.clone(),
                analyst: svc.analyst.clone(),
                deep: svc.deep.clone(),
            },
            scheduler: svc.scheduler.clone(),
            timings: svc.timings.clone(),
            leases: svc.leases.clone(),
            records: svc.records(),
            settings: Arc::new(MatchSettings::of(&svc.config)),
        }
    }
}

impl MatchSettings {
    pub fn of(config: &Config) -> MatchSettings {
        MatchSettings {
            max_chat_chars: config.max_chat_chars,
            eval_budget: Duration::from_millis(config.eval_budget_ms),
            eval_nodes: config.eval_nodes,
            eval_deep_nodes: config.eval_deep_nodes,
            idle_time_scale: config.idle_time_scale,
            chat_deadline: Duration::from_millis(config.llm.chat_deadline_ms),
            words_deadline: Duration::from_millis(config.llm.words_deadline_ms),
            reflection_sampling: config.llm.main,
        }
    }
}
