//! Contract tests for the SQL store: the same calls give the same answers on
//! SQLite (always) and PostgreSQL (when KIBITZ_TEST_POSTGRES names a cluster).

mod common;

use std::sync::{Arc, Mutex};

use chrono::{Duration, Utc};
use kibitz::events::Emitter;
use kibitz::ids::MatchId;
use kibitz::memory::{ConsolidationRow, CreatedBy, Memory, MemoryQuery, MemoryType, PositionTag, Reinforcement};
use kibitz::store::{Db, DomainWrite, Erasure, NewEvent, NewMatch, StoreError, TriggerLogEntry};

async fn check_contract(db: &Db) {
    let pat = db.create_player("Pat", "hash-pat").await.unwrap();
    let quinn = db.create_player("Quinn", "hash-quinn").await.unwrap();
    assert_eq!(db.player_by_token_hash("hash-pat").await.unwrap().unwrap().id, pat.id);
    let m = NewMatch {
        id: MatchId::new(),
        player_id: pat.id,
        persona_id: "pip".into(),
        user_color: "white",
        start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        emotion: "calm".into(),
        utc_offset_minutes: Some(-300),
        persona_elo: 1500,
        adapted: false,
        calibrated: true,
    };
    let row = db.insert_match(&m).await.unwrap();
    assert_eq!(
        row.utc_offset_minutes,
        Some(-300),
        "the offset round-trips on both engines"
    );

    let mut older = Memory {
        player_id: Some(pat.id),
        related_match_id: Some(m.id),
        importance: 0.9,
        pinned: true,
        created_at: Utc::now() - Duration::days(2),
        position: Some(PositionTag {
            key: "463b96181691fc9c".into(),
            eco: Some("B20".into()),
            opening: Some("Sicilian Defense".into()),
        }),
        ..Memory::new(
            "pip",
            MemoryType::PlayerBehavior,
            "always plays the Sicilian",
            CreatedBy::MainAgent,
        )
    };
    db.insert_memory(&older).await.unwrap();
    let newer = Memory {
        player_id: Some(pat.id),
        ..Memory::new(
            "pip",
            MemoryType::PlayerBehavior,
            "plays the Caro-Kann now",
            CreatedBy::MainAgent,
        )
    };
    let theirs = Memory {
        player_id: Some(quinn.id),
        ..Memory::new("pip", MemoryType::PlayerBehavior, "Quinn's own", CreatedBy::MainAgent)
    };
    db.insert_memory(&theirs).await.unwrap();

    // Round trip: every field comes back as written.
    let back = db.memory(older.id).await.unwrap().unwrap();
    assert_eq!(back.position, older.position);
    assert!(back.pinned && !back.never_recall);
    assert!((back.importance - 0.9).abs() < 1e-6);
    assert_eq!(back.created_at.timestamp_millis(), older.created_at.timestamp_millis());

    // Supersede atomically with the insert of the successor.
    let now = Utc::now();
    db.insert_superseding(Some(&newer), &[older.id], newer.id, now)
        .await
        .unwrap();
    let current = db.player_memories(pat.id, &MemoryQuery::default()).await.unwrap();
    assert_eq!(current.iter().map(|m| m.id).collect::<Vec<_>>(), vec![newer.id]);
    let all = MemoryQuery {
        include_superseded: true,
        pinned: Some(true),
        ..MemoryQuery::default()
    };
    let history = db.player_memories(pat.id, &all).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].superseded_by, Some(newer.id));

    // Reinforcement, flags and strengths.
    older.reinforcements.push(Reinforcement {
        match_id: None,
        created_by: CreatedBy::Subconscious,
        content: "still the Sicilian".into(),
        at: now,
    });
    older.strength = 0.75;
    db.save_reinforcement(&older).await.unwrap();
    db.set_memory_flags(older.id, Some(false), Some(true)).await.unwrap();
    db.set_strengths(&[(newer.id, 0.25)], now).await.unwrap();
    let back = db.memory(older.id).await.unwrap().unwrap();
    assert_eq!(back.reinforcements.len(), 1);
    assert!(!back.pinned && back.never_recall);
    assert!((back.strength - 0.75).abs() < 1e-6);
    let by_ids = db.memories_by_ids(&[newer.id, theirs.id]).await.unwrap();
    assert_eq!(by_ids.len(), 2);
    assert!(
        by_ids
            .iter()
            .any(|m| m.id == newer.id && (m.strength - 0.25).abs() < 1e-6)
    );

    // Consolidation log and owners.
    let owners = db.owners_touched_since(Some(pat.id), None).await.unwrap();
    assert_eq!(owners, vec![(pat.id, "pip".into())]);
    let run = ConsolidationRow {
        started_at: now,
        finished_at: now,
        reason: "manual".into(),
        player_id: None,
        merged: 1,
        superseded: 2,
        decayed: 3,
        details: serde_json::json!([{ "action": "merged" }]),
    };
    db.log_consolidation(&run).await.unwrap();
    let logged = db.consolidations(5).await.unwrap();
    assert_eq!((logged[0].merged, logged[0].superseded, logged[0].decayed), (1, 2, 3));
    assert!(db.last_full_consolidation().await.unwrap().is_some());

    // Erasure: the row is gone and its successor link cleared. A merge had
    // kept its words as a source of Pat's older memory: they go too, and
    // Quinn's memory with the same words as a source is left alone.
    let merged_words = |at| Reinforcement {
        match_id: None,
        created_by: CreatedBy::MainAgent,
        content: "plays the Caro-Kann now".into(),
        at,
    };
    let mut older = db.memory(older.id).await.unwrap().unwrap();
    older.reinforcements.push(merged_words(now));
    db.save_reinforcement(&older).await.unwrap();
    let mut theirs = db.memory(theirs.id).await.unwrap().unwrap();
    theirs.reinforcements.push(merged_words(now));
    db.save_reinforcement(&theirs).await.unwrap();
    let forms = kibitz::store::scrub::Forms::new(["plays the Caro-Kann now"]);
    let erasure = Erasure {
        id: newer.id,
        owner: pat.id,
        forms: &forms,
    };
    db.erase_memory(erasure).await.unwrap();
    assert!(db.memory(newer.id).await.unwrap().is_none());
    let older = db.memory(older.id).await.unwrap().unwrap();
    assert_eq!(older.superseded_by, None);
    let sources: Vec<&str> = older.reinforcements.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(sources, vec!["still the Sicilian"]);
    assert_eq!(
        db.memory(theirs.id).await.unwrap().unwrap().reinforcements,
        theirs.reinforcements
    );
    assert_eq!(db.memory_count().await.unwrap(), 2);
}

/// The timeline's writes share commits (group commit): many at once all
/// land, in order, and one bad write (a duplicate event number) fails alone
/// without taking its batch with it or leaving half of itself behind.
async fn check_group_commit(db: &Db) {
    let player = db.create_player("Rae", "hash-rae").await.unwrap();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let m = NewMatch {
            id: MatchId::new(),
            player_id: player.id,
            persona_id: "pip".into(),
            user_color: "white",
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            emotion: "calm".into(),
            utc_offset_minutes: None,
            persona_elo: 1500,
            adapted: false,
            calibrated: true,
        };
        ids.push(db.insert_match(&m).await.unwrap().id);
    }
    let message = |n: i64| DomainWrite::Message {
        sender: "user".into(),
        content: format!("line {n}"),
        tone: None,
    };
    let payload = serde_json::json!({ "kind": "line" });
    let pushed = Arc::new(Mutex::new(Vec::new()));
    let event = |id: MatchId, seq: i64, content: i64| {
        let (db, payload, pushed, write) = (db.clone(), payload.clone(), pushed.clone(), message(content));
        async move {
            let row = NewEvent {
                match_id: id,
                seq,
                kind: "message",
                payload: &payload,
                at: Utc::now(),
            };
            let on_commit = Box::new(move || pushed.lock().unwrap().push((id, content)));
            db.queue_event(row, write, on_commit).await?.committed().await
        }
    };
    let mut writes = Vec::new();
    for seq in 1..=40 {
        for id in &ids {
            writes.push(event(*id, seq, seq));
        }
    }
    writes.push(event(ids[0], 7, -7));
    let results = futures_util::future::join_all(writes).await;
    assert_eq!(
        results.iter().filter(|r| r.is_err()).count(),
        1,
        "only the duplicate fails"
    );
    assert!(results.last().unwrap().is_err());
    // Only what was committed is pushed, in each match's order.
    let pushed = pushed.lock().unwrap().clone();
    for id in &ids {
        let order: Vec<i64> = pushed.iter().filter(|(m, _)| m == id).map(|(_, n)| *n).collect();
        assert_eq!(order, (1..=40).collect::<Vec<_>>());
    }
    for id in &ids {
        let seqs: Vec<i64> = db.events_since(*id, 0).await.unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=40).collect::<Vec<_>>());
        let lines = db.messages(*id).await.unwrap();
        assert_eq!(lines.len(), 40);
        assert!(lines.iter().all(|m| m.content != "line -7"));
    }
    // After its failed write, the match's next one is refused (it must not
    // be stored over the missing one) until it has reloaded.
    let refused = event(ids[0], 41, 41).await;
    assert!(matches!(refused, Err(StoreError::EarlierWriteFailed)), "{refused:?}");
    db.resume_writes(ids[0]);
    event(ids[0], 41, 41).await.unwrap();
    // A move keeps how long its side took over it.
    let row = NewEvent {
        match_id: ids[0],
        seq: 42,
        kind: "move",
        payload: &payload,
        at: Utc::now(),
    };
    let write = DomainWrite::Move {
        ply: 1,
        uci: "e2e4".into(),
        san: "e4".into(),
        side: "user".into(),
        fen_after: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
        odds: None,
        think_ms: Some(312_000),
    };
    db.queue_event(row, write, Box::new(|| ()))
        .await
        .unwrap()
        .committed()
        .await
        .unwrap();
    let moves = db.moves(ids[0]).await.unwrap();
    assert_eq!(
        moves.iter().map(|m| (m.san.as_str(), m.think_ms)).collect::<Vec<_>>(),
        [("e4", Some(312_000))]
    );
    // A trigger's recalls: each logged with its own score and reason, each
    // memory's count bumped once, in the trigger log's commit.
    let recalled: Vec<Memory> = ["likes the Sicilian", "blunders when short of time"]
        .into_iter()
        .map(|text| Memory {
            player_id: Some(player.id),
            ..Memory::new("pip", MemoryType::PlayerBehavior, text, CreatedBy::MainAgent)
        })
        .collect();
    for m in &recalled {
        db.insert_memory(m).await.unwrap();
    }
    let entries = vec![
        (recalled[0].id, 0.75, "the same opening".to_string()),
        (recalled[1].id, 0.5, String::new()),
    ];
    db.log_trigger(TriggerLogEntry {
        match_id: ids[1],
        trigger: "on_user_move".into(),
        event_seq: 1,
        fired_at: Utc::now(),
        recalls: entries.clone(),
        actions: serde_json::json!({ "brain": "scripted" }).to_string(),
        duration_us: 42,
        traces: vec![],
    })
    .await
    .unwrap()
    .committed()
    .await
    .unwrap();
    assert_eq!(db.triggers(ids[1]).await.unwrap()[0].duration_us, 42);
    for (m, (_, score, reason)) in recalled.iter().zip(&entries) {
        let log = db.recalls(m.id).await.unwrap();
        assert_eq!(log.len(), 1, "{log:?}");
        assert_eq!(
            (log[0].score, &log[0].reason, log[0].match_id),
            (*score, reason, ids[1])
        );
        let back = db.memory(m.id).await.unwrap().unwrap();
        assert_eq!(back.recall_count, 1);
        assert!(back.last_recalled_at.is_some());
    }
    check_emitter_pushes_only_what_is_committed(db, ids[1]).await;
}

fn said(text: &str) -> kibitz::events::Message {
    kibitz::events::Message {
        sender: kibitz::events::Side::User,
        content: text.into(),
        tone: None,
    }
}

/// The emitter returns at once and settles later: subscribers see an event
/// only once it is committed, and a write that fails surfaces in `settle`.
async fn check_emitter_pushes_only_what_is_committed(db: &Db, match_id: MatchId) {
    let (tx, mut rx) = tokio::sync::broadcast::channel(16);
    // The match holds seqs 1..=40; an emitter that believes the last is 39 collides.
    let mut emitter = Emitter::new(db.clone(), match_id, 40, tx.clone());
    let fine = emitter.emit(said("forty-one"), DomainWrite::Nothing).await.unwrap();
    emitter.settle().await.unwrap();
    assert_eq!(rx.recv().await.unwrap().event(), fine);
    let mut stale = Emitter::new(db.clone(), match_id, 39, tx);
    let duplicate = stale.emit(said("forty"), DomainWrite::Nothing).await.unwrap();
    assert_eq!(duplicate.seq, 40);
    assert!(stale.settle().await.is_err(), "the duplicate seq fails when settled");
    assert!(rx.try_recv().is_err(), "and is never pushed");
    assert_eq!(db.last_event_seq(match_id).await.unwrap(), 41);
}

#[tokio::test]
async fn sqlite_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    check_contract(&db).await;
    check_group_commit(&db).await;
}

#[tokio::test]
async fn postgres_keeps_the_contract() {
    let Some(admin) = common::test_postgres() else {
        eprintln!("skipped: set KIBITZ_TEST_POSTGRES (make test-postgres does) to run against PostgreSQL");
        return;
    };
    let db = Db::connect(&common::postgres_database(&admin).await).await.unwrap();
    check_contract(&db).await;
    check_group_commit(&db).await;
}

/// Under a writer that never pauses, the checkpointer still starts the WAL
/// over: each checkpoint finds only the frames of the writes since the last
/// one, not every write the database ever took (every write adds at least a
/// frame; PASSIVE checkpoints alone let the WAL grow that way).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_wal_starts_over_under_continuous_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let player = db.create_player("Wal", "hash-wal").await.unwrap();
    let (seen, writes) = checkpoints_beside_a_writer(&db, None).await;
    assert!(writes > 100, "the writer barely ran ({writes} writes)");
    assert!(seen.iter().all(|c| c.restarted), "a checkpoint was held up: {seen:?}");
    let most = seen.iter().map(|c| c.wal_frames).max().unwrap();
    assert!(
        most > 0 && most < writes / 2,
        "the WAL kept growing: {seen:?}, {writes} writes in all"
    );
    assert!(db.player_by_token_hash("hash-wal").await.unwrap().map(|p| p.id) == Some(player.id));
}

/// A writer that pauses between commits, as a live server's does, is never
/// held up: PASSIVE passes catch up with it and the WAL still starts over,
/// with no RESTART pass (which holds writers back) but now and then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_wal_starts_over_without_holding_a_pausing_writer() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::connect(&format!("sqlite://{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let pause = std::time::Duration::from_millis(2);
    let (seen, writes) = checkpoints_beside_a_writer(&db, Some(pause)).await;
    assert!(writes > 50, "the writer barely ran ({writes} writes)");
    assert!(seen.iter().all(|c| c.restarted), "{seen:?}");
    let forced = seen.iter().filter(|c| c.forced).count();
    assert!(forced <= 5, "{forced} of 20 checkpoints held the writer back: {seen:?}");
    let most = seen.iter().map(|c| c.wal_frames).max().unwrap();
    assert!(
        most > 0 && most < writes / 2,
        "the WAL kept growing: {seen:?}, {writes} writes"
    );
}

/// Twenty checkpoints, 40 ms apart, while a writer adds players (pausing
/// `pause` after each, if given): what each did, and the writes made.
async fn checkpoints_beside_a_writer(
    db: &Db,
    pause: Option<std::time::Duration>,
) -> (Vec<kibitz::store::Checkpoint>, i64) {
    // The migrations' pages go first: the WAL measured is the writer's.
    let mut checkpointer = db.checkpointer().expect("SQLite has one");
    checkpointer.run().await.unwrap();
    let writing = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let writer = {
        let (db, writing) = (db.clone(), writing.clone());
        tokio::spawn(async move {
            let mut writes = 0i64;
            while writing.load(std::sync::atomic::Ordering::Relaxed) {
                db.create_player(&format!("p{writes}"), &format!("h{writes}"))
                    .await
                    .unwrap();
                writes += 1;
                if let Some(pause) = pause {
                    tokio::time::sleep(pause).await;
                }
            }
            writes
        })
    };
    let mut seen = Vec::new();
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(40)).await;
        seen.push(checkpointer.run().await.unwrap());
    }
    writing.store(false, std::sync::atomic::Ordering::Relaxed);
    (seen, writer.await.unwrap())
}
