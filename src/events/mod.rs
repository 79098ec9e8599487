//! A match's event stream: every move, message, emotion and trigger is
//! written to SQL with the next sequence number, then pushed to subscribers.
//! Persist first, push second: nothing a client saw can be lost in a crash.
//! The journal pushes each event once it is committed, so the match goes on
//! while its events are written and waits once (`settle`) before it answers.

mod body;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

pub use body::{
    Draft, DrawOffer, Emotion, EventBody, FamiliarityReached, GameOver, Hint, MemorySaved, Message, Move, Odds,
    OddsDepth, PuzzleAnswer, PuzzleOffer, Rating, Reflection, Side, Takeback, Talk, TriggerFired,
};

use crate::ids::MatchId;
use crate::store::{Db, DomainWrite, EventRow, NewEvent, Queued, StoreError};

/// One event of a match: `{"seq", "type", "data", "at"}` on the wire, the
/// `type` naming the kind and `data` its payload.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MatchEvent {
    pub seq: i64,
    #[serde(flatten)]
    pub body: EventBody,
    pub at: DateTime<Utc>,
}

/// A stored event this build cannot read (a kind or shape it does not know).
#[derive(Debug, thiserror::Error)]
#[error("event {seq} ({kind}) cannot be read: {source}")]
pub struct UnreadableEvent {
    pub seq: i64,
    pub kind: String,
    source: serde_json::Error,
}

impl TryFrom<EventRow> for MatchEvent {
    type Error = UnreadableEvent;

    fn try_from(r: EventRow) -> Result<Self, Self::Error> {
        let body = EventBody::from_stored(&r.kind, r.payload).map_err(|source| UnreadableEvent {
            seq: r.seq,
            kind: r.kind,
            source,
        })?;
        Ok(MatchEvent {
            seq: r.seq,
            body,
            at: r.created_at,
        })
    }
}

/// The rows that read as events; one that does not is logged and left out,
/// so a row no build of today knows never hides the rest of a match.
pub fn readable(rows: Vec<EventRow>) -> Vec<MatchEvent> {
    rows.into_iter()
        .filter_map(|row| MatchEvent::try_from(row).map_err(|e| tracing::warn!("{e}")).ok())
        .collect()
}

/// What a match pushes to whoever listens now.
#[derive(Debug, Clone)]
pub enum Pushed {
    /// Stored and numbered first: whoever missed it reads it from SQL.
    Stored(MatchEvent),
    /// Never stored or numbered: the persona's words as a model writes them.
    Passing { draft: Draft, at: DateTime<Utc> },
}

/// The number a passing event shows on the wire, below every stored one.
const PASSING_SEQ: i64 = 0;

impl Pushed {
    /// The event as the wire shows it (a passing one numbered 0).
    pub fn event(&self) -> MatchEvent {
        match self {
            Pushed::Stored(e) => e.clone(),
            Pushed::Passing { draft, at } => MatchEvent {
                seq: PASSING_SEQ,
                body: EventBody::Draft(draft.clone()),
                at: *at,
            },
        }
    }
}

/// Sends passing events of one match, from a task that outlives the
/// emitter's borrow. Nobody listening is fine: they were only passing.
#[derive(Clone)]
pub struct Passing(broadcast::Sender<Pushed>);

impl Passing {
    pub fn send(&self, draft: Draft) {
        let _ = self.0.send(Pushed::Passing { draft, at: Utc::now() });
    }
}

pub struct Emitter {
    db: Db,
    match_id: MatchId,
    last_seq: i64,
    tx: broadcast::Sender<Pushed>,
    /// Writes queued since the last `settle`.
    queued: Vec<Queued>,
}

impl Emitter {
    pub fn new(db: Db, match_id: MatchId, last_seq: i64, tx: broadcast::Sender<Pushed>) -> Emitter {
        Emitter {
            db,
            match_id,
            last_seq,
            tx,
            queued: Vec::new(),
        }
    }

    pub fn match_id(&self) -> MatchId {
        self.match_id
    }

    pub fn last_seq(&self) -> i64 {
        self.last_seq
    }

    pub fn passing(&self) -> Passing {
        Passing(self.tx.clone())
    }

    pub async fn emit(&mut self, body: impl Into<EventBody>, write: DomainWrite) -> Result<MatchEvent, StoreError> {
        let event = MatchEvent {
            seq: self.last_seq + 1,
            body: body.into(),
            at: Utc::now(),
        };
        let payload = event.body.payload();
        let row = NewEvent {
            match_id: self.match_id,
            seq: event.seq,
            kind: event.body.kind(),
            payload: &payload,
            at: event.at,
        };
        let (tx, pushed) = (self.tx.clone(), Pushed::Stored(event.clone()));
        // No subscriber is fine: the event is in SQL for whoever connects later.
        let push = Box::new(move || drop(tx.send(pushed)));
        self.queued.push(self.db.queue_event(row, write, push).await?);
        self.last_seq = event.seq;
        Ok(event)
    }

    /// Numbers events from `last_seq` again: what was numbered after it was
    /// never stored (a failed write), and the match went back to SQL.
    pub fn rewind(&mut self, last_seq: i64) {
        self.queued.clear();
        self.last_seq = last_seq;
    }

    /// Another write of this match's to wait for in `settle`.
    pub fn track(&mut self, queued: Queued) {
        self.queued.push(queued);
    }

    /// Waits until every write queued so far is committed; the first failure.
    pub async fn settle(&mut self) -> Result<(), StoreError> {
        let mut first = Ok(());
        for queued in self.queued.drain(..) {
            let result = queued.committed().await;
            if first.is_ok() {
                first = result;
            }
        }
        first
    }
}

#[cfg(test)]
mod tests;
