//! A match's event stream: every move, message, emotion and trigger is
//! written to SQL with the next sequence number, then pushed to subscribers.
//! Persist first, push second: nothing a client saw can be lost in a crash.

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::ids::MatchId;
use crate::store::{Db, DomainWrite, EventRow, StoreError};

#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct MatchEvent {
    pub seq: i64,
    #[serde(rename = "type")]
    pub kind: String,
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    pub at: DateTime<Utc>,
}

impl From<EventRow> for MatchEvent {
    fn from(r: EventRow) -> Self {
        MatchEvent {
            seq: r.seq,
            kind: r.kind,
            data: r.payload,
            at: r.created_at,
        }
    }
}

pub struct Emitter {
    db: Db,
    match_id: MatchId,
    last_seq: i64,
    tx: broadcast::Sender<MatchEvent>,
}

impl Emitter {
    pub fn new(db: Db, match_id: MatchId, last_seq: i64, tx: broadcast::Sender<MatchEvent>) -> Emitter {
        Emitter {
            db,
            match_id,
            last_seq,
            tx,
        }
    }

    pub fn match_id(&self) -> MatchId {
        self.match_id
    }

    pub fn last_seq(&self) -> i64 {
        self.last_seq
    }

    pub async fn emit(
        &mut self,
        kind: &str,
        data: serde_json::Value,
        write: DomainWrite,
    ) -> Result<MatchEvent, StoreError> {
        let seq = self.last_seq + 1;
        let at = self.db.append_event(self.match_id, seq, kind, &data, write).await?;
        self.last_seq = seq;
        let event = MatchEvent {
            seq,
            kind: kind.to_string(),
            data,
            at,
        };
        // No subscriber is fine: the event is in SQL for whoever connects later.
        let _ = self.tx.send(event.clone());
        Ok(event)
    }
}
