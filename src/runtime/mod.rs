//! The match runtime: a registry of live matches, each an actor task that
//! serialises its events. Commands go in through [`Runtime`]; events come
//! out through each match's broadcast channel.

mod abandoned;
mod actor;
mod admission;
mod deep;
mod error;
mod familiarity;
mod game_review;
mod leases;
mod loading;
mod marker;
mod opening;
mod ownership;
mod pace;
mod personas;
mod players;
mod ratings;
mod records;
mod resume;
mod review;
mod roster;
mod services;
mod shutdown;
mod state;
mod timing;
mod unreviewed;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, mpsc, oneshot, watch};

pub use actor::{Opened, Outcome, UserCommand};
pub use admission::AdmissionView;
pub use deep::{DeepEvaluations, DeepStats};
pub use error::RuntimeError;
pub use familiarity::{PersonaFamiliarity, PlayerProfile, StageStep};
pub use game_review::game_review;
pub use leases::{ClusterStartError, Leases};
pub use marker::RunMarker;
pub use opening::{ColorChoice, MatchRequest};
pub use ownership::Placement;
pub use personas::{CardImport, CardImportError};
pub use ratings::PlayerRating;
use services::Services;
pub use services::{MemoryOnly, Shared, StartError};
pub use shutdown::Stopped;
pub use state::{LegalMove, MatchState, MoveView};

use loading::{StoredGame, color_of};
use loading::{stored_game, talk_mode};
pub use timing::{Phase, PhaseStats, PhaseTimes};

use actor::Command;

use crate::config::Config;
use crate::events::Pushed;
use crate::ids::{MatchId, PlayerId};
use crate::store::{MatchRow, MatchStatus};

struct Live {
    inbox: mpsc::Sender<Command>,
    events: broadcast::Sender<Pushed>,
    /// Kept here so every authorised request need not ask SQL who owns it.
    owner: PlayerId,
    /// On PostgreSQL, this node's lease on it: its epoch, and when claimed.
    lease: Option<(i64, std::time::Instant)>,
}

#[derive(Clone)]
pub struct Runtime {
    svc: Arc<Services>,
    /// What each match actor is given of the services.
    node: actor::MatchHandles,
    live: Arc<Mutex<HashMap<MatchId, Live>>>,
    /// Each match actor holds a receiver until it ends (see `shutdown`).
    actors: Arc<watch::Sender<()>>,
    /// Unfinished matches found at start and not yet resumed (`resume.rs`).
    resuming: Arc<resume::Resuming>,
    /// New matches refused because the engine was behind (`admission.rs`).
    refused_busy: Arc<std::sync::atomic::AtomicU64>,
    /// The lease keeper's and the roster watcher's tasks (`ownership.rs`,
    /// `roster.rs`), stopped by a shutdown.
    lease_tasks: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
    /// The last imported card this node has installed (`roster.rs`).
    cards_seen: Arc<std::sync::atomic::AtomicI64>,
}

impl Runtime {
    /// Opens every service; the matches that were live resume in the
    /// background (`resume.rs`), so the server answers at once.
    pub async fn start(config: Config) -> Result<Runtime, StartError> {
        let svc = Arc::new(Services::open(config).await?);
        let runtime = Runtime {
            node: actor::MatchHandles::of(&svc),
            svc,
            live: Arc::default(),
            actors: Arc::new(watch::channel(()).0),
            resuming: Arc::default(),
            refused_busy: Arc::default(),
            lease_tasks: Arc::default(),
            cards_seen: Arc::default(),
        };
        runtime.keep_leases().await;
        runtime.keep_roster().await;
        let unfinished = runtime.unfinished_to_load().await.map_err(StartError::Resume)?;
        runtime.resume_in_background(unfinished);
        runtime.review_the_unreviewed();
        runtime.watch_for_abandoned().await;
        Ok(runtime)
    }

    /// Whether the models a server loads in the background after start
    /// are there: the situation vocabulary, the listener and recall's
    /// relevance model (until then chat is heard and recalled by rules).
    pub fn models_ready(&self) -> bool {
        let svc = &self.svc;
        svc.memory.embedding_stats().pinned > 0
            && svc.pipeline.listener.get().is_some()
            && svc.pipeline.subconscious.learned()
    }

    /// From now on every board moment's candidates are kept (for the
    /// recall bench's `--trace`, which fits the board model on them).
    pub fn trace_recall(&self) -> Arc<crate::subconscious::RecallTrace> {
        let trace = self.svc.pipeline.subconscious.trace();
        trace.start();
        trace
    }

    pub fn shared(&self) -> Shared {
        Shared {
            db: self.svc.db.clone(),
            memory: self.svc.memory.clone(),
            config: self.svc.config.clone(),
        }
    }

    /// The engine's name and the per-phase timings, for the admin status.
    pub fn engine_name(&self) -> String {
        self.svc.engine.name()
    }

    pub fn timings(&self) -> Vec<PhaseStats> {
        self.svc.timings.snapshot()
    }

    /// The deeper evaluation's books since start.
    pub fn deep_evaluations(&self) -> DeepStats {
        self.svc.deep.stats()
    }

    /// How the personas' searches under the node budget ended since start:
    /// at their nodes, or stopped short by the time cap.
    pub fn persona_searches(&self) -> crate::chess::engine::SearchTally {
        self.svc.engine.searches()
    }

    /// Erases a memory from SQL and the index, and from the model threads
    /// of matches this node plays, so no later call sends its words; the
    /// forms of its words, for the other nodes' matches (`forget`).
    pub async fn erase_memory(
        &self,
        memory: &crate::memory::Memory,
    ) -> Result<crate::store::scrub::Forms, crate::memory::MemoryError> {
        let forms = self.svc.memory.erase(memory).await?;
        self.forget(memory.player_id, &forms);
        Ok(forms)
    }

    /// Forgets erased words (here, or on another node of the club) in the
    /// model threads of `owner`'s live matches; a memory of no player (the
    /// persona's lore, erased by the admin) in every match's.
    pub fn forget(&self, owner: Option<PlayerId>, forms: &crate::store::scrub::Forms) {
        let matches: Vec<MatchId> = {
            let live = self.live.lock().expect("registry lock");
            let owned = live.iter().filter(|(_, l)| owner.is_none_or(|o| l.owner == o));
            owned.map(|(id, _)| *id).collect()
        };
        self.svc.pipeline.brain.forget(&matches, forms);
    }

    pub async fn command(&self, id: MatchId, cmd: UserCommand) -> Result<Outcome, RuntimeError> {
        self.admit_command(&cmd)?;
        let inbox = self.inbox(id).await?;
        ask(&inbox, |reply| Command::User { cmd, reply }).await
    }

    /// Like `command`, for a client that follows the match's event stream:
    /// done once what it wrote is committed, with no state view built.
    pub async fn submit(&self, id: MatchId, cmd: UserCommand) -> Result<(), RuntimeError> {
        self.admit_command(&cmd)?;
        let inbox = self.inbox(id).await?;
        ask(&inbox, |reply| Command::Submit { cmd, reply }).await
    }

    /// Ends a match as the site it is played on decided (a clock ran out, the
    /// game was aborted); false if it was over already.
    pub async fn conclude(&self, id: MatchId, end: crate::chess::GameEnd) -> Result<bool, RuntimeError> {
        match self.inbox(id).await {
            Ok(inbox) => ask(&inbox, |reply| Command::Conclude { end, reply }).await,
            Err(RuntimeError::GameOver) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The persona's clock on the site the match is played on: its moves
    /// keep within it (`actor/clock.rs`).
    pub async fn set_clock(&self, id: MatchId, left: std::time::Duration, increment: std::time::Duration) {
        if let Ok(inbox) = self.inbox(id).await {
            let _ = inbox.send(Command::Clock { left, increment }).await;
        }
    }

    pub async fn state(&self, id: MatchId) -> Result<MatchState, RuntimeError> {
        let inbox = self
            .live
            .lock()
            .expect("registry lock")
            .get(&id)
            .map(|l| l.inbox.clone());
        if let Some(inbox) = inbox
            && let Ok(outcome) = ask(&inbox, |reply| Command::State { reply }).await
        {
            return Ok(outcome.state);
        }
        self.stored_state(id).await
    }

    /// How many matches have a running actor.
    pub fn live_matches(&self) -> usize {
        self.live.lock().expect("registry lock").len()
    }

    /// The gauges a scrape reads now: live matches and the leases held.
    pub fn record_gauges(&self) {
        let live = self.live.lock().expect("registry lock");
        crate::telemetry::matches_live(live.len());
        crate::telemetry::leases_held(live.values().filter(|l| l.lease.is_some()).count());
    }

    fn is_live(&self, id: MatchId) -> bool {
        let live = self.live.lock().expect("registry lock");
        live.get(&id).is_some_and(|l| !l.inbox.is_closed())
    }

    /// Drops the matches `lost(id, claimed at)` picks from the registry:
    /// each actor ends once its inbox is empty (and checks its lease before
    /// each command). How many were dropped.
    fn evict(&self, lost: impl Fn(MatchId, std::time::Instant) -> bool) -> usize {
        let mut live = self.live.lock().expect("registry lock");
        let before = live.len();
        live.retain(|id, l| !l.lease.is_some_and(|(_, claimed)| lost(*id, claimed)));
        before - live.len()
    }

    /// The player a match belongs to (NotFound if there is no such match).
    pub async fn owner(&self, id: MatchId) -> Result<PlayerId, RuntimeError> {
        let live = self.live.lock().expect("registry lock").get(&id).map(|l| l.owner);
        match live {
            Some(owner) => Ok(owner),
            None => Ok(self.match_row(id).await?.player_id),
        }
    }

    /// Live events of a match (none arrive for a finished one). An
    /// unfinished match not loaded yet (a restart's background resume had not
    /// reached it) is loaded first: its channel would otherwise not exist,
    /// and the subscriber would hear nothing of it.
    pub async fn subscribe(&self, id: MatchId) -> broadcast::Receiver<Pushed> {
        if let Err(e) = self.inbox(id).await {
            tracing::debug!(match_id = %id, "no live events: {e}");
        }
        match self.live.lock().expect("registry lock").get(&id) {
            Some(live) => live.events.subscribe(),
            None => broadcast::channel(1).1,
        }
    }

    /// The inbox of a live match; a finished one answers GameOver.
    async fn inbox(&self, id: MatchId) -> Result<mpsc::Sender<Command>, RuntimeError> {
        let found = self
            .live
            .lock()
            .expect("registry lock")
            .get(&id)
            .map(|l| l.inbox.clone());
        if let Some(inbox) = found.filter(|i| !i.is_closed()) {
            return Ok(inbox);
        }
        let row = self.match_row(id).await?;
        if row.status == MatchStatus::Finished {
            return Err(RuntimeError::GameOver);
        }
        // Not resumed yet (or its actor ended): loaded now, its resume
        // queued ahead of the command.
        Ok(self.spawn(id, false).await?.0)
    }

    async fn match_row(&self, id: MatchId) -> Result<MatchRow, RuntimeError> {
        self.svc
            .db
            .match_row(id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("match {id}")))
    }

    async fn stored_state(&self, id: MatchId) -> Result<MatchState, RuntimeError> {
        let stored = self.stored_parts(id).await?;
        Ok(MatchState::build(stored.parts(), &stored.game))
    }

    async fn stored_game(&self, id: MatchId) -> Result<StoredGame, RuntimeError> {
        stored_game(&self.svc.db, id).await
    }
}

async fn ask<T>(
    inbox: &mpsc::Sender<Command>,
    make: impl FnOnce(oneshot::Sender<Result<T, RuntimeError>>) -> Command,
) -> Result<T, RuntimeError> {
    let (reply, rx) = oneshot::channel();
    inbox.send(make(reply)).await.map_err(|_| RuntimeError::GameOver)?;
    rx.await.map_err(|_| RuntimeError::GameOver)?
}
