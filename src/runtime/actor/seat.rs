//! Seating a match's actor: its parts made from the match as SQL holds it,
//! with the move brain and language-model sessions the runtime opened for
//! it, and the history the persona speaks from read.

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use super::puzzle::PuzzleBoard;
use super::{Command, IdleTimer, MatchActor, MatchHandles, OddsBook, Table, Voice};
use crate::chess::Game;
use crate::chess::odds::MoveOdds;
use crate::events::{Emitter, Pushed, Side};
use crate::llm::Session;
use crate::moves::MoveBrain;
use crate::personas::Persona;
use crate::runtime::error::RuntimeError;
use crate::runtime::{color_of, talk_mode};
use crate::store::{MatchRow, Player};
use crate::triggers::SAID_KEPT;

/// The match as the runtime read it, and where the actor is reached.
pub struct Seating {
    pub row: MatchRow,
    pub game: Game,
    pub odds: Vec<Option<MoveOdds>>,
    /// At the strength this match is played at.
    pub persona: Arc<Persona>,
    pub player: Player,
    pub inbox: mpsc::WeakSender<Command>,
    pub events: broadcast::Sender<Pushed>,
    /// A new match (its greeting is next), not one resumed after a restart.
    pub fresh: bool,
    /// Chooses the persona's moves.
    pub brain: Box<dyn MoveBrain>,
    pub sessions: Sessions,
}

/// A match's sessions on the language models (each with its failover
/// state and accounting), when any are configured.
#[derive(Default)]
pub struct Sessions {
    pub main: Option<Arc<Session>>,
    /// Only with `llm.model_recall`: otherwise the subconscious searches itself.
    pub subconscious: Option<Arc<Session>>,
    pub reflection: Option<Arc<Session>>,
}

impl MatchActor {
    pub async fn seat(node: MatchHandles, seating: Seating) -> Result<MatchActor, RuntimeError> {
        let Seating {
            row,
            game,
            odds,
            persona,
            player,
            inbox,
            events,
            fresh,
            brain,
            sessions,
        } = seating;
        let (db, id) = (&node.db, row.id);
        // A resumed match remembers what it said before the restart.
        let said = match fresh {
            true => Vec::new(),
            false => db.persona_said(id, SAID_KEPT).await?,
        };
        let talk = talk_mode(db, row.player_id, &row.persona_id).await?;
        let draw_offer = row.draw_offer.as_deref().and_then(Side::parse);
        let table = Table::new(game, color_of(&row), draw_offer, db.match_notes(id).await?);
        let mut idle = IdleTimer::new(node.scheduler.clone());
        let mut puzzle = PuzzleBoard::default();
        if !fresh {
            idle.resume_nudges(db.nudges_since_user_acted(id).await?);
            puzzle = PuzzleBoard::restore(db, id).await?;
        }
        let mut actor = MatchActor {
            id,
            started_at: row.created_at,
            utc_offset_minutes: row.utc_offset_minutes,
            voice: Voice::new(row.emotion, said, talk),
            table,
            odds: OddsBook::new(odds),
            idle,
            history: Default::default(),
            emitter: Emitter::new(db.clone(), id, db.last_event_seq(id).await?, events),
            inbox,
            done: false,
            puzzle,
            after_game: None,
            brain,
            agent_llm: sessions.main,
            sub_llm: sessions.subconscious,
            reflection_llm: sessions.reflection,
            site_clock: None,
            player,
            persona,
            node,
        };
        actor.history = actor.load_history().await?;
        Ok(actor)
    }
}
