//! Group commit for a match's timeline: every event (with the domain row it
//! stands for) and every trigger log goes to one writer task, which commits
//! whatever is waiting in one transaction and only then runs each entry's
//! `on_commit` (pushing the event to subscribers) and answers its `Queued`.
//! Alone, a write is committed at once; under load, one commit serves many
//! matches. At 200 live matches a commit per event cost ~10% of the server's
//! CPU (BEGIN/COMMIT round trips to SQLite's thread, WAL frames per commit);
//! on PostgreSQL each commit is an fsync. Writers need not wait for each
//! commit: a match queues a whole turn and waits once, before it answers.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use sqlx::AnyPool;
use tokio::sync::{mpsc, oneshot};

use super::controls::NoteKind;
use super::provenance::{Trace, trace_statements};
use super::recall_log::{RecallEntry, recall_statements};
use super::script::Script;
use super::{Arg, Backend, Db, StoreError, StoreResult, ts};
use crate::chess::odds::{Eval, MoveOdds};
use crate::ids::{MatchId, PersonaId};

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
        /// How long the side to move took over it.
        think_ms: Option<i64>,
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
    /// How much the player wants this persona to talk, from now on.
    Talk {
        player_id: String,
        persona_id: PersonaId,
        mode: &'static str,
    },
    /// A takeback granted: the moves after the first `keep` are gone, and
    /// a note says which they were.
    Takeback {
        keep: usize,
        text: String,
    },
    /// A note on the game for its PGN (a hint), before move `ply`.
    Note {
        ply: usize,
        kind: &'static str,
        text: String,
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
    TriggerLog(TriggerLogEntry),
}

/// A trigger's log row, its recalls and the memories its turn quoted.
pub struct TriggerLogEntry {
    pub match_id: MatchId,
    pub trigger: String,
    /// The trigger's own event: the turn's first.
    pub event_seq: i64,
    pub fired_at: DateTime<Utc>,
    pub recalls: Vec<RecallEntry>,
    /// JSON, serialised by the caller (not on the writer task, which every match shares).
    pub actions: String,
    pub duration_us: i64,
    pub traces: Vec<Trace>,
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

/// Matches one of whose writes failed: nothing more of theirs is written
/// until the match has gone back to what is stored (`Db::resume_writes`),
/// so a later move is never stored over a missing one.
type Broken = Arc<Mutex<HashSet<MatchId>>>;

/// The sending side of the writer task; the task ends when every `Db` clone is gone.
#[derive(Clone)]
pub(super) struct Journal {
    jobs: mpsc::Sender<Job>,
    broken: Broken,
}

impl Journal {
    pub(super) fn start(pool: AnyPool, backend: Backend) -> Journal {
        let (jobs, rx) = mpsc::channel(MAX_BATCH * 16);
        let broken = Broken::default();
        tokio::spawn(run(pool, backend, rx, broken.clone()));
        Journal { jobs, broken }
    }

    pub(super) fn resume(&self, id: MatchId) {
        self.broken.lock().expect("broken-match lock").remove(&id);
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
        self.jobs.send(job).await.map_err(|_| StoreError::WriterStopped)?;
        Ok(Queued(committed))
    }
}

async fn run(pool: AnyPool, backend: Backend, mut jobs: mpsc::Receiver<Job>, broken: Broken) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let is_broken = |job: &Job| {
        broken
            .lock()
            .expect("broken-match lock")
            .contains(&job.entry.match_id())
    };
    let mark_broken = |job: &Job| broken.lock().expect("broken-match lock").insert(job.entry.match_id());
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let (refused, writable): (Vec<Job>, Vec<Job>) = batch.drain(..).partition(|j| is_broken(j));
        refused
            .into_iter()
            .for_each(|job| job.finish(Err(StoreError::EarlierWriteFailed)));
        batch = writable;
        if batch.is_empty() {
            continue;
        }
        match write_all(&pool, backend, &batch).await {
            Ok(()) => {
                batch.drain(..).for_each(|job| job.finish(Ok(())));
                continue;
            }
            Err(e) if batch.len() == 1 => {
                let job = batch.pop().expect("one job");
                mark_broken(&job);
                job.finish(Err(e));
                continue;
            }
            Err(_) => {}
        }
        // One bad entry must not fail other matches' entries: each alone,
        // in its own transaction, in order (a match's later ones refused).
        for job in batch.drain(..) {
            if is_broken(&job) {
                job.finish(Err(StoreError::EarlierWriteFailed));
                continue;
            }
            let result = write_all(&pool, backend, std::slice::from_ref(&job)).await;
            if result.is_err() {
                mark_broken(&job);
            }
            job.finish(result);
        }
    }
}

impl Entry {
    fn match_id(&self) -> MatchId {
        match self {
            Entry::Event { match_id, .. } => *match_id,
            Entry::TriggerLog(log) => log.match_id,
        }
    }
}

async fn write_all(pool: &AnyPool, backend: Backend, jobs: &[Job]) -> StoreResult<()> {
    let mut script = Script::new(backend);
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
                write_domain(&mut script, (&mid, *seq), write, job.at);
                script.insert(
                    "INSERT INTO events (match_id, seq, kind, payload, created_at) VALUES ",
                    [
                        Arg::text(mid),
                        Arg::Int(*seq),
                        Arg::text(kind.as_str()),
                        Arg::text(payload.as_str()),
                        Arg::text(ts(job.at)),
                    ],
                );
            }
            Entry::TriggerLog(log) => {
                let recalled_ids: Vec<String> = log.recalls.iter().map(|(id, _, _)| id.to_string()).collect();
                script.insert(
                    "INSERT INTO trigger_log (match_id, trigger, event_seq, fired_at, recalled_ids, actions, \
                     duration_us) VALUES ",
                    [
                        Arg::text(log.match_id.to_string()),
                        Arg::text(log.trigger.as_str()),
                        Arg::Int(log.event_seq),
                        Arg::text(ts(log.fired_at)),
                        Arg::text(serde_json::to_string(&recalled_ids).unwrap_or_else(|_| "[]".into())),
                        Arg::text(log.actions.as_str()),
                        Arg::Int(log.duration_us),
                    ],
                );
                recall_statements(&mut script, log.match_id, &log.trigger, &log.recalls);
                trace_statements(&mut script, log.match_id, log.fired_at, &log.traces);
            }
        }
    }
    script.commit(pool).await
}

/// `event` is the match and sequence number of the event the row stands for.
fn write_domain(script: &mut Script, event: (&str, i64), write: &DomainWrite, at: DateTime<Utc>) {
    let (mid, seq) = event;
    match write {
        DomainWrite::Move {
            ply,
            uci,
            san,
            side,
            fen_after,
            odds,
            think_ms,
        } => {
            script.insert(
                "INSERT INTO moves (match_id, ply, uci, san, side, fen_after, win_pct_white, win_pct_delta, \
                 eval_cp, eval_mate, think_ms, odds_deep, created_at) VALUES ",
                [
                    Arg::text(mid),
                    Arg::Int(*ply as i64),
                    Arg::text(uci.as_str()),
                    Arg::text(san.as_str()),
                    Arg::text(side.as_str()),
                    Arg::text(fen_after.as_str()),
                    Arg::opt_real(odds.map(|o| o.white)),
                    Arg::opt_real(odds.map(|o| o.delta)),
                    Arg::opt_int(Eval::columns(odds.and_then(|o| o.eval)).0),
                    Arg::opt_int(Eval::columns(odds.and_then(|o| o.eval)).1),
                    Arg::opt_int(*think_ms),
                    Arg::Int(i64::from(odds.is_some_and(|o| o.deep))),
                    Arg::text(ts(at)),
                ],
            );
        }
        DomainWrite::Odds { ply, odds } => {
            let q = script.statement("UPDATE moves SET win_pct_white = ");
            q.real(odds.white).push(", win_pct_delta = ").real(odds.delta);
            let (cp, mate) = Eval::columns(odds.eval);
            q.push(", eval_cp = ").opt_int(cp).push(", eval_mate = ").opt_int(mate);
            q.push(", odds_deep = ").int(i64::from(odds.deep));
            q.push(" WHERE match_id = ")
                .text(mid)
                .push(" AND ply = ")
                .int(*ply as i64);
        }
        DomainWrite::Message { sender, content, tone } => {
            script.insert(
                "INSERT INTO messages (match_id, event_seq, sender, content, tone, created_at) VALUES ",
                [
                    Arg::text(mid),
                    Arg::Int(seq),
                    Arg::text(sender.as_str()),
                    Arg::text(content.as_str()),
                    Arg::opt_text(tone.as_deref()),
                    Arg::text(ts(at)),
                ],
            );
        }
        DomainWrite::Emotion { emotion, reason } => {
            script.insert(
                "INSERT INTO emotions (match_id, emotion, reason, created_at) VALUES ",
                [
                    Arg::text(mid),
                    Arg::text(emotion.as_str()),
                    Arg::opt_text(reason.as_deref()),
                    Arg::text(ts(at)),
                ],
            );
            let q = script.statement("UPDATE matches SET emotion = ");
            q.text(emotion.as_str()).push(" WHERE id = ").text(mid);
        }
        DomainWrite::DrawOffer { by } => {
            let q = script.statement("UPDATE matches SET draw_offer = ");
            q.opt_text(by.as_deref()).push(" WHERE id = ").text(mid);
        }
        DomainWrite::Finish { result, termination } => {
            let q = script.statement("UPDATE matches SET status = 'finished', result = ");
            q.text(result.as_str())
                .push(", termination = ")
                .text(termination.as_str());
            q.push(", draw_offer = NULL, ended_at = ")
                .text(ts(at))
                .push(" WHERE id = ")
                .text(mid);
        }
        DomainWrite::Talk {
            player_id,
            persona_id,
            mode,
        } => {
            let q = script.statement("INSERT INTO talk_preferences (player_id, persona_id, mode, updated_at) VALUES (");
            q.text(player_id.as_str()).push(", ").text(persona_id.as_str());
            q.push(", ").text(*mode).push(", ").text(ts(at));
            q.push(") ON CONFLICT (player_id, persona_id) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at");
        }
        DomainWrite::Takeback { keep, text } => {
            let q = script.statement("DELETE FROM moves WHERE match_id = ");
            q.text(mid).push(" AND ply > ").int(*keep as i64);
            note(script, mid, *keep, NoteKind::Takeback.as_str(), text, at);
        }
        DomainWrite::Note { ply, kind, text } => note(script, mid, *ply, kind, text, at),
        DomainWrite::Nothing => {}
    }
}

fn note(script: &mut Script, mid: &str, ply: usize, kind: &str, text: &str, at: DateTime<Utc>) {
    script.insert(
        "INSERT INTO match_notes (match_id, ply, kind, text, created_at) VALUES ",
        [
            Arg::text(mid),
            Arg::Int(ply as i64),
            Arg::text(kind),
            Arg::text(text),
            Arg::text(ts(at)),
        ],
    );
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

    /// A match whose write failed has gone back to what is stored: its
    /// writes are taken again.
    pub fn resume_writes(&self, id: MatchId) {
        self.journal.resume(id);
    }

    /// Queues the trigger's log row, its recalls and its traces, written in
    /// one transaction.
    pub async fn log_trigger(&self, entry: TriggerLogEntry) -> StoreResult<Queued> {
        self.journal.queue(Entry::TriggerLog(entry), Utc::now(), None).await
    }
}
