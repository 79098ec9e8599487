//! Loading a match into the registry: claimed (on PostgreSQL), read from
//! SQL and replayed, an actor task spawned with its `Begin` queued first;
//! and its end: out of the registry, its lease given up.

use shakmaty::Color;
use tokio::sync::{broadcast, mpsc, oneshot};
use tracing::Instrument;

use super::actor::{Command, MatchActor, Seating, Sessions};
use super::{Live, Outcome, Runtime, RuntimeError};
use crate::chess::Game;
use crate::chess::odds::MoveOdds;
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::personas::Persona;
use crate::store::{Db, MatchRow, MoveRow, StoreResult};
use crate::triggers::TalkMode;

impl Runtime {
    /// Loads a match from SQL into a new actor task, queues its `Begin`
    /// (fresh: the greeting; else a resume: timers, the persona's move if
    /// due) ahead of anything else, and registers it. If another caller
    /// registered the match meanwhile, that actor's inbox and no `Begin`.
    pub(super) async fn spawn(
        &self,
        id: MatchId,
        fresh: bool,
    ) -> Result<(mpsc::Sender<Command>, Option<Begun>), RuntimeError> {
        // Timed once the claim has committed: a renewal sent after that
        // finds the lease, and one sent before it may not (it is then not
        // taken for a lease lost, `ownership.rs`).
        let lease = match &self.svc.leases {
            Some(leases) => Some((leases.claim(id).await?, std::time::Instant::now())),
            None => None,
        };
        let loaded = self.load(id, fresh, lease).await;
        if let (Err(_), Some(leases), Some((epoch, _))) = (&loaded, &self.svc.leases, lease) {
            leases.release(id, epoch).await;
        }
        loaded
    }

    /// `spawn` under its lease.
    async fn load(
        &self,
        id: MatchId,
        fresh: bool,
        lease: Option<(i64, std::time::Instant)>,
    ) -> Result<(mpsc::Sender<Command>, Option<Begun>), RuntimeError> {
        let (row, game, odds) = self.stored_game(id).await?;
        let persona = self
            .svc
            .persona(&row.persona_id)
            .ok_or_else(|| RuntimeError::UnknownPersona(row.persona_id.to_string()))?;
        let persona = at_strength(persona, &row);
        let player = self.player(row.player_id).await?;
        let (inbox, rx) = mpsc::channel(64);
        let (events, _) = broadcast::channel(256);
        let (owner, row_persona) = (row.player_id, row.persona_id.clone());
        let brain = self.svc.moves.persona_brain(&persona, Some(id.to_string()));
        let sessions = self.sessions(&persona, id);
        let seating = Seating {
            game,
            odds,
            persona,
            player,
            inbox: inbox.downgrade(),
            events: events.clone(),
            fresh,
            row,
            brain,
            sessions,
        };
        let actor = MatchActor::seat(self.node.clone(), seating).await?;
        let (reply, begun) = oneshot::channel();
        {
            let mut live = self.live.lock().expect("registry lock");
            if let Some(running) = live.get(&id).filter(|l| !l.inbox.is_closed()) {
                return Ok((running.inbox.clone(), None));
            }
            // The inbox is new and empty: Begin is first.
            inbox
                .try_send(Command::Begin { fresh, reply })
                .map_err(|_| RuntimeError::Unavailable)?;
            live.insert(
                id,
                Live {
                    inbox: inbox.clone(),
                    events,
                    owner,
                    lease,
                },
            );
        }
        let (runtime, alive) = (self.clone(), self.actors.subscribe());
        // Every line the match logs names it and its player (a JSON log's
        // `span` object), and the tasks it starts inherit the span.
        let span = tracing::info_span!("match", match_id = %id, player_id = %owner, persona = %row_persona);
        tokio::spawn(
            async move {
                actor.run(rx).await;
                runtime.ended(id, lease).await;
                drop(alive);
            }
            .instrument(span),
        );
        Ok((inbox, Some(begun)))
    }
}

impl Runtime {
    /// A match's actor ended: out of the registry, and its lease given up,
    /// unless a newer actor took its place meanwhile.
    async fn ended(&self, id: MatchId, lease: Option<(i64, std::time::Instant)>) {
        let replaced = {
            let mut live = self.live.lock().expect("registry lock");
            if live.get(&id).is_some_and(|l| l.inbox.is_closed()) {
                live.remove(&id);
            }
            live.contains_key(&id)
        };
        if let (false, Some(leases), Some((epoch, _))) = (replaced, &self.svc.leases, lease) {
            leases.release(id, epoch).await;
        }
    }
}

/// How a match's `Begin` went.
type Begun = oneshot::Receiver<Result<Outcome, RuntimeError>>;

/// A match as SQL holds it: its row, the game replayed from its stored
/// moves, and each move's odds.
pub(in crate::runtime) type StoredGame = (MatchRow, Game, Vec<Option<MoveOdds>>);

pub(in crate::runtime) async fn stored_game(db: &crate::store::Db, id: MatchId) -> Result<StoredGame, RuntimeError> {
    let row = db
        .match_row(id)
        .await?
        .ok_or_else(|| RuntimeError::NotFound(format!("match {id}")))?;
    let moves = db.moves(id).await?;
    let odds = moves.iter().map(MoveRow::odds).collect();
    let ucis: Vec<String> = moves.into_iter().map(|m| m.uci).collect();
    let mut game = Game::replay(&row.start_fen, &ucis)?;
    if let Some(end) = row
        .termination
        .as_deref()
        .and_then(|t| crate::chess::GameEnd::parse(t, row.result.as_deref()?))
    {
        game.finish(end);
    }
    Ok((row, game, odds))
}

pub(in crate::runtime) fn color_of(row: &MatchRow) -> Color {
    if row.user_color == "white" {
        Color::White
    } else {
        Color::Black
    }
}

/// The persona as this match plays it: at the strength it adapted to, if
/// the player asked it to (its engine, its words and the prompt all say so).
fn at_strength(
    persona: std::sync::Arc<crate::personas::Persona>,
    row: &MatchRow,
) -> std::sync::Arc<crate::personas::Persona> {
    match row.persona_elo.filter(|&elo| row.adapted && elo != persona.elo) {
        Some(elo) => std::sync::Arc::new(crate::personas::Persona {
            elo,
            ..(*persona).clone()
        }),
        None => persona,
    }
}

impl Runtime {
    /// A match's sessions on the language models, if any are configured;
    /// the persona's card may name the endpoint its main agent starts at.
    fn sessions(&self, persona: &Persona, id: MatchId) -> Sessions {
        let Some(pool) = &self.svc.llm else {
            return Sessions::default();
        };
        let (llm, id, endpoint) = (
            &self.svc.config.llm,
            Some(id.to_string()),
            persona.llm.endpoint.as_deref(),
        );
        Sessions {
            main: Some(pool.session_from(id.clone(), "main", persona.llm.sampling(llm.main), endpoint)),
            subconscious: llm
                .model_recall
                .then(|| pool.session_from(id.clone(), "subconscious", llm.subconscious, endpoint)),
            reflection: Some(pool.session(id, "reflection", llm.main)),
        }
    }
}

/// How much the player wants `persona` to talk: as they last asked, or
/// the default (a name this build does not know, from a newer one, too).
pub(super) async fn talk_mode(db: &Db, player: PlayerId, persona: &PersonaId) -> StoreResult<TalkMode> {
    let stored = db.talk_preference(player, persona).await?;
    Ok(stored.as_deref().and_then(TalkMode::parse).unwrap_or_default())
}
