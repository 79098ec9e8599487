//! The match runtime: a registry of live matches, each an actor task that
//! serialises its events. Commands go in through [`Runtime`]; events come
//! out through each match's broadcast channel.

mod abandoned;
mod actor;
mod admission;
mod error;
mod familiarity;
mod leases;
mod loading;
mod marker;
mod ownership;
mod pace;
mod personas;
mod ratings;
mod records;
mod resume;
mod roster;
mod services;
mod shutdown;
mod state;
mod timing;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rand::Rng;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

pub use actor::{Opened, Outcome, UserCommand};
pub use admission::AdmissionView;
pub use error::RuntimeError;
pub use familiarity::{PersonaFamiliarity, PlayerProfile, StageStep};
pub use leases::{ClusterStartError, Leases};
pub use marker::RunMarker;
pub use ownership::Placement;
pub use personas::{CardImport, CardImportError};
pub use ratings::PlayerRating;
use services::Services;
pub use services::{MemoryOnly, Shared, StartError};
pub use shutdown::Stopped;
pub use state::{LegalMove, MatchState, MoveView};

use loading::{stored_game, talk_mode};
use loading::{StoredGame, color_of};
pub use timing::{Phase, PhaseStats, PhaseTimes};

use actor::Command;
use state::StateParts;

use crate::chess::Game;
use crate::config::Config;
use crate::events::Pushed;
use crate::ids::{MatchId, PlayerId};
use crate::store::{MatchRow, MatchStatus, NewMatch, Player};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

/// What a player asks for when a match is opened.
#[derive(Debug, Clone, Copy)]
pub struct MatchRequest<'a> {
    pub persona_id: &'a str,
    pub color: ColorChoice,
    /// A set start position (None: the initial one).
    pub fen: Option<&'a str>,
    /// Minutes east of UTC where the player is.
    pub utc_offset_minutes: Option<i32>,
    /// The persona plays at the player's own strength, within its card's
    /// range (`rating::adapted_strength`); the game is then not rated.
    pub adaptive: bool,
}

impl<'a> MatchRequest<'a> {
    /// From the initial position, as White, the player's offset unknown.
    pub fn new(persona_id: &'a str) -> Self {
        MatchRequest {
            persona_id,
            color: ColorChoice::White,
            fen: None,
            utc_offset_minutes: None,
            adaptive: false,
        }
    }
}

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

    /// A new player and its bearer token (shown once; only its hash is kept).
    pub async fn create_player(&self, name: &str) -> Result<(Player, String), RuntimeError> {
        let name = Runtime::check_name(name)?;
        let token = crate::tokens::new_token();
        let player = self.svc.db.create_player(name, &crate::tokens::hash(&token)).await?;
        Ok((player, token))
    }

    /// A player's name as it is kept (trimmed), or why it cannot be one;
    /// asked before anything is spent on a registration (an invite).
    pub fn check_name(name: &str) -> Result<&str, RuntimeError> {
        // The limit is on what was sent, as the API schema says; only the
        // emptiness test looks past surrounding spaces.
        let len = name.chars().count();
        // A name goes into prompts, PGN headers and log lines: one line of
        // text, as sent (a trailing newline too, as the schema says).
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(RuntimeError::ControlInName(c));
        }
        let name = name.trim();
        if name.is_empty() {
            return Err(RuntimeError::EmptyText);
        }
        if len > 64 {
            return Err(RuntimeError::TextTooLong { len, max: 64 });
        }
        Ok(name)
    }

    pub async fn player(&self, id: PlayerId) -> Result<Player, RuntimeError> {
        self.svc
            .db
            .player(id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("player {id}")))
    }

    /// A match to play against `persona_id`: the player's unfinished one
    /// against it, if there is one and no set position is asked for
    /// (`resumed`), else a new one, unless the player already holds
    /// `limits.live_matches_per_player` unfinished matches, or the engine
    /// is too far behind to take a new one (`admission.rs`).
    pub async fn open_match(&self, player_id: PlayerId, req: MatchRequest<'_>) -> Result<Opened, RuntimeError> {
        let db = &self.svc.db;
        if req.fen.is_none()
            && let Some(id) = db.active_match(player_id, req.persona_id).await?
        {
            let state = self.state(id).await?;
            let outcome = Outcome {
                events: Vec::new(),
                state,
            };
            return Ok(Opened { outcome, resumed: true });
        }
        let cap = self.svc.config.limits.live_matches_per_player;
        if cap > 0 && db.active_match_count(player_id).await? >= i64::from(cap) {
            return Err(RuntimeError::TooManyMatches { cap });
        }
        self.admit_new_match()?;
        let outcome = self.create_match(player_id, req).await?;
        Ok(Opened {
            outcome,
            resumed: false,
        })
    }

    pub async fn create_match(&self, player_id: PlayerId, req: MatchRequest<'_>) -> Result<Outcome, RuntimeError> {
        let MatchRequest {
            persona_id,
            color,
            fen,
            utc_offset_minutes,
            adaptive,
        } = req;
        if let Some(m) = utc_offset_minutes.filter(|m| !(-720..=840).contains(m)) {
            return Err(RuntimeError::BadUtcOffset(m));
        }
        let persona = self
            .svc
            .persona(persona_id)
            .ok_or_else(|| RuntimeError::UnknownPersona(persona_id.chars().take(64).collect()))?;
        self.player(player_id).await?;
        let game = Game::new(fen).map_err(|e| RuntimeError::InvalidFen(e.to_string()))?;
        if game.end().is_some() {
            return Err(RuntimeError::InvalidFen(
                "the game is already over in that position".into(),
            ));
        }
        let persona_elo = match adaptive {
            true => self.svc.records().adapted_strength(player_id, &persona).await?,
            false => persona.elo,
        };
        let user_white = match color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => rand::thread_rng().r#gen(),
        };
        let new = NewMatch {
            id: MatchId::new(),
            player_id,
            persona_id: persona.id.clone(),
            user_color: if user_white { "white" } else { "black" },
            start_fen: game.start_fen().to_string(),
            emotion: persona.default_emotion().to_string(),
            utc_offset_minutes,
            persona_elo,
            adapted: adaptive,
            // A language model's moves have no calibrated strength (with no
            // model configured, such a persona plays with its engine).
            calibrated: persona.brain == crate::personas::BrainKind::Engine || self.svc.moves.llm.is_none(),
        };
        // Held before it exists: another node looking for matches nobody
        // holds must not find it between its row and its lease.
        let lease = match &self.svc.leases {
            Some(leases) => Some((leases, leases.claim(new.id).await?)),
            None => None,
        };
        // The cap is checked again as the row goes in: concurrent creations
        // all passed `open_match`'s look before any of them was stored.
        let cap = self.svc.config.limits.live_matches_per_player;
        let inserted = self.svc.db.insert_match_capped(&new, cap).await;
        if !matches!(inserted, Ok(Some(_))) {
            if let Some((leases, epoch)) = lease {
                leases.release(new.id, epoch).await;
            }
            return Err(match inserted {
                Err(e) => e.into(),
                _ => RuntimeError::TooManyMatches { cap },
            });
        }
        let (_, begun) = self.spawn(new.id, true).await?;
        let begun = begun.ok_or(RuntimeError::Unavailable)?;
        begun.await.map_err(|_| RuntimeError::GameOver)?
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
        let (row, game, odds) = self.stored_game(id).await?;
        let player = self.player(row.player_id).await?;
        let persona = self.svc.persona(&row.persona_id);
        let notes = self.svc.db.match_notes(id).await?;
        let talk = talk_mode(&self.svc.db, row.player_id, &row.persona_id).await?;
        let parts = StateParts {
            id,
            player_id: row.player_id,
            player_name: &player.name,
            persona_id: &row.persona_id,
            persona_name: persona.as_ref().map_or(row.persona_id.as_str(), |p| p.name.as_str()),
            persona_elo: persona.as_ref().map_or(0, |p| p.elo),
            user_color: color_of(&row),
            date: row.created_at,
            emotion: &row.emotion,
            draw_offer: row.draw_offer.as_deref(),
            last_seq: self.svc.db.last_event_seq(id).await?,
            odds: &odds,
            notes: &notes,
            talk,
        };
        Ok(MatchState::build(parts, &game))
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
