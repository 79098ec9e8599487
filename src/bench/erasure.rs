//! `kibitz bench erasure`: how long forgetting one memory takes when the
//! database holds many other players' events, every one of them quoting the
//! same words (the worst case for a text-wide scrub, which erasure no longer
//! is). Figures are printed and written as JSON, never asserted.

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::json;

use kibitz::ids::{MatchId, PlayerId};
use kibitz::memory::{CreatedBy, Memory, MemoryType};
use kibitz::store::scrub::Forms;
use kibitz::store::{Db, DomainWrite, Erasure, NewEvent, NewMatch, Queued, Trace, TriggerLogEntry};

/// What everybody said, and what the owner's memory holds.
const WORDS: &str = "My favourite opening is the London System and I play it every day";
const EVENTS_PER_MATCH: usize = 100;
const MATCHES_PER_PLAYER: usize = 10;
/// The owner's memories erased one after another, each timed.
const ERASED: usize = 20;

pub async fn run(events: usize, out: &Path) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("bench.db").display())).await?;
    let filled = Instant::now();
    let others = (events / EVENTS_PER_MATCH).max(1);
    for i in 0..others {
        let player = player(&db, i).await?;
        let m = new_match(&db, player).await?;
        let queued = turn_events(&db, m, 1, EVENTS_PER_MATCH as i64).await?;
        settle(queued).await?;
        if (i + 1) % 100 == 0 {
            eprint!(
                "\rother players' events: {} of {}",
                (i + 1) * EVENTS_PER_MATCH,
                others * EVENTS_PER_MATCH
            );
        }
    }
    eprintln!();
    let fill_secs = filled.elapsed().as_secs_f64();

    let owner = player(&db, others).await?;
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..ERASED {
        let memory = traced_memory(&db, owner).await?;
        let forms = Forms::new([memory.content.as_str(), WORDS]);
        let started = Instant::now();
        let erased = db
            .erase_memory(Erasure {
                id: memory.id,
                owner,
                forms: &forms,
            })
            .await?;
        times.push(started.elapsed());
        rows += erased.rows_rewritten;
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (p50, max) = (ms(times[times.len() / 2]), ms(times[times.len() - 1]));
    println!(
        "erasure with {} other players' events ({} matches, filled in {fill_secs:.1} s): \
         p50 {p50:.1} ms, max {max:.1} ms over {ERASED} memories; {} owner rows rewritten each",
        others * EVENTS_PER_MATCH,
        others,
        rows / ERASED
    );
    let report = json!({
        "at": Utc::now(),
        "other_events": others * EVENTS_PER_MATCH,
        "erased": ERASED,
        "p50_ms": p50,
        "max_ms": max,
        "rows_rewritten_each": rows / ERASED,
    });
    crate::bench::write_figures(out, &report)?;
    Ok(())
}

pub(super) async fn player(db: &Db, i: usize) -> anyhow::Result<PlayerId> {
    Ok(db.create_player(&format!("Player {i}"), &format!("hash-{i}")).await?.id)
}

pub(super) async fn new_match(db: &Db, player: PlayerId) -> anyhow::Result<MatchId> {
    let m = NewMatch {
        id: MatchId::new(),
        player_id: player,
        persona_id: "margot".into(),
        user_color: "white",
        start_fen: shakmaty::fen::Fen::default().to_string(),
        emotion: "calm".into(),
        utc_offset_minutes: None,
        persona_elo: 1500,
        adapted: false,
        calibrated: true,
    };
    Ok(db.insert_match(&m).await?.id)
}

/// Events `first..=last` of match `m`: every other one a message quoting `WORDS`.
async fn turn_events(db: &Db, m: MatchId, first: i64, last: i64) -> anyhow::Result<Vec<Queued>> {
    let mut queued = Vec::new();
    for seq in first..=last {
        let content = format!("That reminds me: \"{WORDS}\" ({seq})");
        let payload = json!({ "sender": "persona", "content": content });
        let write = match seq % 2 {
            0 => DomainWrite::Message {
                sender: "persona".into(),
                content,
                tone: None,
            },
            _ => DomainWrite::Nothing,
        };
        let event = NewEvent {
            match_id: m,
            seq,
            kind: "message",
            payload: &payload,
            at: Utc::now(),
        };
        queued.push(db.queue_event(event, write, Box::new(|| {})).await?);
    }
    Ok(queued)
}

pub(super) async fn settle(queued: Vec<Queued>) -> anyhow::Result<()> {
    for q in queued {
        q.committed().await?;
    }
    Ok(())
}

/// A memory of the owner's, quoted in the turns of `MATCHES_PER_PLAYER` of
/// their matches, each traced as the runtime traces a turn.
async fn traced_memory(db: &Db, owner: PlayerId) -> anyhow::Result<Memory> {
    let memory = Memory {
        player_id: Some(owner),
        ..Memory::new("margot", MemoryType::PlayerObservation, WORDS, CreatedBy::MainAgent)
    };
    db.insert_memory(&memory).await?;
    for _ in 0..MATCHES_PER_PLAYER {
        let m = new_match(db, owner).await?;
        let mut queued = turn_events(db, m, 1, EVENTS_PER_MATCH as i64).await?;
        let entry = TriggerLogEntry {
            match_id: m,
            trigger: "on_user_input".into(),
            event_seq: 1,
            fired_at: Utc::now(),
            recalls: vec![],
            actions: json!({ "said": WORDS }).to_string(),
            duration_us: 1,
            traces: vec![Trace {
                memory_id: memory.id,
                first_seq: 1,
                last_seq: 4,
                source_seq: Some(1),
            }],
        };
        queued.push(db.log_trigger(entry).await?);
        settle(queued).await?;
    }
    Ok(memory)
}
