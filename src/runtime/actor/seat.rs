//! Seating a match's actor: its parts made from the match as SQL holds it,
//! the persona's move brain and language-model sessions opened, and the
//! history the persona speaks from read.

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use super::{Command, IdleTimer, MatchActor, OddsBook, Table, Voice};
use crate::chess::Game;
use crate::chess::odds::MoveOdds;
use crate::events::{Emitter, MatchEvent, Side};
use crate::personas::Persona;
use crate::runtime::error::RuntimeError;
use crate::runtime::{Services, color_of};
use crate::store::{MatchRow, Player};
use crate::triggers::{SAID_KEPT, TalkMode};

/// The match as the runtime read it, and where the actor is reached.
pub struct Seating {
    pub row: MatchRow,
    pub game: Game,
    pub odds: Vec<Option<MoveOdds>>,
    /// At the strength this match is played at.
    pub persona: Arc<Persona>,
    pub player: Player,
    pub inbox: mpsc::WeakSender<Command>,
    pub events: broadcast::Sender<MatchEvent>,
    /// A new match (its greeting is next), not one resumed after a restart.
    pub fresh: bool,
}

impl MatchActor {
    pub async fn seat(svc: Arc<Services>, seating: Seating) -> Result<MatchActor, RuntimeError> {
        let Seating {
            row,
            game,
            odds,
            persona,
            player,
            inbox,
            events,
            fresh,
        } = seating;
        let (db, id) = (&svc.db, row.id);
        // A resumed match remembers what it said before the restart.
        let said = match fresh {
            true => Vec::new(),
            false => db.persona_said(id, SAID_KEPT).await?,
        };
        let talk = TalkMode::parse(&db.talk_mode(row.player_id, &row.persona_id).await?).unwrap_or_default();
        let draw_offer = row.draw_offer.as_deref().and_then(Side::parse);
        let table = Table::new(game, color_of(&row), draw_offer, db.match_notes(id).await?);
        let mut idle = IdleTimer::new(svc.scheduler.clone());
        if !fresh {
            idle.resume_nudges(db.nudges_since_user_acted(id).await?);
        }
        let (agent_llm, sub_llm) = sessions(&svc, &persona, &row);
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
            brain: svc.moves.persona_brain(&persona, Some(id.to_string())),
            agent_llm,
            sub_llm,
            player,
            persona,
            svc,
        };
        actor.history = actor.load_history().await?;
        Ok(actor)
    }
}

type Session = Option<Arc<crate::llm::Session>>;

/// The main agent's and the subconscious's sessions on the language
/// models, if any are configured (the subconscious's with `model_recall`).
fn sessions(svc: &Services, persona: &Persona, row: &MatchRow) -> (Session, Session) {
    let Some(pool) = &svc.llm else {
        return (None, None);
    };
    let (id, endpoint) = (Some(row.id.to_string()), persona.llm.endpoint.as_deref());
    let main = pool.session_from(id.clone(), "main", persona.llm.sampling(svc.config.llm.main), endpoint);
    let sub = svc
        .config
        .llm
        .model_recall
        .then(|| pool.session_from(id, "subconscious", svc.config.llm.subconscious, endpoint));
    (Some(main), sub)
}
