//! Group commit for a match's timeline: every event (with the domain row it
//! stands for) and every trigger log goes to one writer task, which commits
//! whatever is waiting in one transaction and only then runs each entry's
//! `on_commit` (pushing the event to subscribers) and answers its `Queued`.
//! Alone, a write is committed at once; under load, one commit serves many
//! matches. At 200 live matches a commit per event cost ~10% of the server's
//! CPU (BEGIN/COMMIT round trips to SQLite's thread, WAL frames per commit);
//! on PostgreSQL each commit is an fsync. Writers need not wait for each
//! commit: a match queues a whole turn and waits once, before it answers.

use chrono::{DateTime, Utc};
use sqlx::{Any, AnyPool, Transaction};
use tokio::sync::{mpsc, oneshot};

use super::memories::{RecallEntry, insert_recalls};
use super::{Db, StoreError, StoreResult, ts};
use crate::chess::odds::MoveOdds;
use crate::ids::MatchId;

/// The domain row an event stands for, written in the same transaction.
#[derive(Debug, Clone)]
pub enum DomainWrite {
    Move {
        ply: usize,
        uci: String,
        san: String,
        side: String,
        fen_after: String,
        odds: Option<MoveOdds>,
    },
    Message {
        sender: String,
        content: String,
        tone: Option<String>,
    },
    Emotion {
        emotion: String,
        reason: Option<String>,
    },
    DrawOffer {
        by: Option<String>,
    },
    Finish {
        result: String,
        termination: String,
    },
    /// A deeper evaluation revised a stored move's odds.
    Odds {
        ply: usize,
        odds: MoveOdds,
    },
    Nothing,
}

/// A match event's row.
pub struct NewEvent<'a> {
    pub match_id: MatchId,
    pub seq: i64,
    pub kind: &'a str,
    pub payload: &'a serde_json::Value,
    pub at: DateTime<Utc>,
}

/// One write the journal commits.
enum Entry {
    Event {
        match_id: MatchId,
        seq: i64,
        kind: String,
        payload: String,
        write: DomainWrite,
    },
    TriggerLog {
        match_id: MatchId,
        trigger: String,
        fired_at: DateTime<Utc>,
        recalls: Vec<RecallEntry>,
        actions: String,
        duration_us: i64,
    },
}

/// Runs once its entry is committed, in commit order.
pub type OnCommit = Box<dyn FnOnce() + Send + Sync>;

struct Job {
    entry: Entry,
    at: DateTime<Utc>,
    done: oneshot::Sender<StoreResult<()>>,
    on_commit: Option<OnCommit>,
}

impl Job {
    fn finish(self, result: StoreResult<()>) {
        if let (Ok(()), Some(on_commit)) = (&result, self.on_commit) {
            on_commit();
        }
        let _ = self.done.send(result);
    }
}

/// A write in the journal's queue; `committed` says how it ended.
#[must_use = "a queued write may still fail: await `committed`"]
pub struct Queued(oneshot::Receiver<StoreResult<()>>);

impl Queued {
    pub async fn committed(self) -> StoreResult<()> {
        self.0.await.map_err(|_| StoreError::WriterStopped)?
    }
}

/// Entries per transaction at most: enough to share a commit among many
/// matches, few enough that none waits long behind the others.
const MAX_BATCH: usize = 64;

/// The sending side of the writer task; the task ends when every `Db` clone is gone.
#[derive(Clone)]
pub(super) struct Journal(mpsc::Sender<Job>);

impl Journal {
    pub(super) fn start(pool: AnyPool) -> Journal {
        let (tx, rx) = mpsc::channel(MAX_BATCH * 16);
        tokio::spawn(run(pool, rx));
        Journal(tx)
    }

    /// Queues `entry`; waits only when the queue is full.
    async fn queue(&self, entry: Entry, at: DateTime<Utc>, on_commit: Option<OnCommit>) -> StoreResult<Queued> {
        let (done, committed) = oneshot::channel();
        let job = Job {
            entry,
            at,
            done,
            on_commit,
        };
        self.0.send(job).await.map_err(|_| StoreError::WriterStopped)?;
        Ok(Queued(committed))
    }
}

async fn run(pool: AnyPool, mut jobs: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        match write_all(&pool, &batch).await {
            Ok(()) => batch.drain(..).for_each(|job| job.finish(Ok(()))),
            Err(e) if batch.len() == 1 => {
                if let Some(job) = batch.pop() {
                    job.finish(Err(e));
                }
            }
            // One bad entry must not fail the others: each alone, in its own transaction.
            Err(_) => {
                for job in batch.drain(..) {
                    let result = write_all(&pool, std::slice::from_ref(&job)).await;
                    job.finish(result);
                }
            }
        }
    }
}

async fn write_all(pool: &AnyPool, jobs: &[Job]) -> StoreResult<()> {
    let mut tx = pool.begin().await?;
    for job in jobs {
        match &job.entry {
            Entry::Event {
                match_id,
                seq,
                kind,
                payload,
                write,
            } => {
                let mid = match_id.to_string();
                write_domain(&mut tx, &mid, write, job.at).await?;
                sqlx::query(
                    "INSERT INTO events (match_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&mid)
                .bind(seq)
                .bind(kind)
                .bind(payload)
                .bind(ts(job.at))
                .execute(&mut *tx)
                .await?;
            }
            Entry::TriggerLog {
                match_id,
                trigger,
                fired_at,
                recalls,
                actions,
                duration_us,
            } => {
                let recalled_ids: Vec<String> = recalls.iter().map(|(id, _, _)| id.to_string()).collect();
                sqlx::query(
                    "INSERT INTO trigger_log (match_id, trigger, fired_at, recalled_ids, actions, duration_us) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(match_id.to_string())
                .bind(trigger)
                .bind(ts(*fired_at))
                .bind(serde_json::to_string(&recalled_ids).unwrap_or_else(|_| "[]".into()))
                .bind(actions)
                .bind(duration_us)
                .execute(&mut *tx)
                .await?;
                insert_recalls(&mut tx, *match_id, trigger, recalls).await?;
            }
        }
    }
    tx.commit().await?;
    Ok(())
}

async fn write_domain(
    tx: &mut Transaction<'_, Any>,
    mid: &str,
    write: &DomainWrite,
    at: DateTime<Utc>,
) -> StoreResult<()> {
    let query = match write {
        DomainWrite::Move {
            ply,
            uci,
            san,
            side,
            fen_after,
            odds,
        } => sqlx::query(
            "INSERT INTO moves (match_id, ply, uci, san, side, fen_after, win_pct_white, win_pct_delta, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(mid)
        .bind(*ply as i64)
        .bind(uci)
        .bind(san)
        .bind(side)
        .bind(fen_after)
        .bind(odds.map(|o| o.white))
        .bind(odds.map(|o| o.delta))
        .bind(ts(at)),
        DomainWrite::Odds { ply, odds } => {
            sqlx::query("UPDATE moves SET win_pct_white = $1, win_pct_delta = $2 WHERE match_id = $3 AND ply = $4")
                .bind(odds.white)
                .bind(odds.delta)
                .bind(mid)
                .bind(*ply as i64)
        }
        DomainWrite::Message { sender, content, tone } => sqlx::query(
            "INSERT INTO messages (match_id, sender, content, tone, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(mid)
        .bind(sender)
        .bind(content)
        .bind(tone)
        .bind(ts(at)),
        DomainWrite::Emotion { emotion, reason } => {
            sqlx::query("INSERT INTO emotions (match_id, emotion, reason, created_at) VALUES ($1, $2, $3, $4)")
                .bind(mid)
                .bind(emotion)
                .bind(reason)
                .bind(ts(at))
                .execute(&mut **tx)
                .await?;
            sqlx::query("UPDATE matches SET emotion = $1 WHERE id = $2")
                .bind(emotion)
                .bind(mid)
        }
        DomainWrite::DrawOffer { by } => sqlx::query("UPDATE matches SET draw_offer = $1 WHERE id = $2")
            .bind(by)
            .bind(mid),
        DomainWrite::Finish { result, termination } => sqlx::query(
            "UPDATE matches SET status = 'finished', result = $1, termination = $2, draw_offer = NULL, \
             ended_at = $3 WHERE id = $4",
        )
        .bind(result)
        .bind(termination)
        .bind(ts(at))
        .bind(mid),
        DomainWrite::Nothing => return Ok(()),
    };
    query.execute(&mut **tx).await?;
    Ok(())
}

impl Db {
    /// Queues a domain row and its numbered event, written atomically (either
    /// both exist after a crash or neither does); `on_commit` runs once they
    /// are committed.
    pub async fn queue_event(
        &self,
        event: NewEvent<'_>,
        write: DomainWrite,
        on_commit: OnCommit,
    ) -> StoreResult<Queued> {
        let entry = Entry::Event {
            match_id: event.match_id,
            seq: event.seq,
            kind: event.kind.to_string(),
            payload: event.payload.to_string(),
            write,
        };
        self.journal.queue(entry, event.at, Some(on_commit)).await
    }

    /// Queues the trigger's log row and its recalls, written in one transaction.
    pub async fn log_trigger(
        &self,
        match_id: MatchId,
        trigger: &str,
        fired_at: DateTime<Utc>,
        recalls: &[RecallEntry],
        actions: &serde_json::Value,
        duration_us: i64,
    ) -> StoreResult<Queued> {
        let entry = Entry::TriggerLog {
            match_id,
            trigger: trigger.to_string(),
            fired_at,
            recalls: recalls.to_vec(),
            actions: actions.to_string(),
            duration_us,
        };
        self.journal.queue(entry, Utc::now(), None).await
    }
}
