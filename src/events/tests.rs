use serde_json::{Value, json};

use super::*;

/// Every event row of a database made by main at 94c6a73, before events were
/// typed: games with chat, a hint, an explanation, quiet and chatty, a
/// takeback granted and one refused, draw offers, resignations, a mate from
/// a set position (unrated), reflections and a stage of familiarity.
const MADE_BY_MAIN: &str = include_str!("../../tests/data/events-made-by-94c6a73.jsonl");

fn stored_rows() -> Vec<(String, Value)> {
    MADE_BY_MAIN
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            (row["kind"].as_str().unwrap().to_string(), row["payload"].clone())
        })
        .collect()
}

#[test]
fn every_stored_row_reads_back_and_writes_the_same_payload() {
    let rows = stored_rows();
    assert!(rows.len() > 100, "the fixture holds {} rows", rows.len());
    for (kind, payload) in rows {
        let body = EventBody::from_stored(&kind, payload.clone())
            .unwrap_or_else(|e| panic!("a stored {kind} does not read: {e}\n{payload}"));
        assert_eq!(body.kind(), kind);
        assert_eq!(body.payload(), payload, "a {kind} changed shape on the way back");
    }
}

#[test]
fn the_fixture_covers_every_stored_kind() {
    let mut seen: Vec<String> = stored_rows().into_iter().map(|(k, _)| k).collect();
    seen.sort();
    seen.dedup();
    // Drafts are passing: pushed, never stored; puzzles came after the fixture.
    let stored: Vec<&str> = samples()
        .iter()
        .map(EventBody::kind)
        .filter(|k| !["draft", "puzzle", "puzzle_answer"].contains(k))
        .collect();
    for kind in stored {
        assert!(seen.iter().any(|s| s == kind), "no stored {kind} in the fixture");
    }
}

/// One body of each kind, with the shapes the fixture lacks (the persona's
/// own draw offer and its withdrawal, a draft as it streams and as it ends).
fn samples() -> Vec<EventBody> {
    let stored = stored_rows();
    let mut bodies: Vec<EventBody> = Vec::new();
    for (kind, payload) in stored {
        if !bodies.iter().any(|b| b.kind() == kind) {
            bodies.push(EventBody::from_stored(&kind, payload).unwrap());
        }
    }
    let offered = DrawOffer {
        by: Some(Side::Persona),
        accepted: None,
        pending: Some(true),
    };
    let withdrawn = DrawOffer {
        by: None,
        accepted: None,
        pending: Some(false),
    };
    let streaming = Draft {
        trigger: crate::triggers::TriggerKind::OnUserInput,
        text: Some("Hm".into()),
        spoke: None,
    };
    let done = Draft {
        trigger: crate::triggers::TriggerKind::OnUserInput,
        text: None,
        spoke: Some(true),
    };
    bodies.extend([offered.into(), withdrawn.into(), streaming.into(), done.into()]);
    bodies.extend(puzzle_samples());
    bodies
}

/// A puzzle offered and answered (kinds newer than the fixture).
fn puzzle_samples() -> [EventBody; 2] {
    let id = crate::ids::PuzzleId::new();
    let offer = PuzzleOffer {
        id,
        fen: "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1".into(),
        played_san: "Qd4".into(),
        from_match: crate::ids::MatchId::new(),
        ply: 1,
        played_at: chrono::Utc::now(),
        legal_moves: vec!["d1d8".into(), "d1d4".into()],
    };
    let answer = PuzzleAnswer {
        id,
        correct: true,
        answered_san: "Qxd8#".into(),
        solution_san: "Qxd8#".into(),
        status: crate::puzzles::PuzzleStatus::Open,
    };
    [offer.into(), answer.into()]
}

#[test]
fn the_kind_is_the_tag_on_the_wire_and_each_shape_round_trips() {
    for body in samples() {
        let wire = serde_json::to_value(&body).unwrap();
        assert_eq!(wire["type"], body.kind());
        let back: EventBody = serde_json::from_value(wire).unwrap();
        assert_eq!(back, body);
    }
}

#[test]
fn an_event_on_the_wire_is_seq_type_data_at() {
    let event = MatchEvent {
        seq: 7,
        body: TriggerFired {
            trigger: crate::triggers::TriggerKind::IdleWait,
        }
        .into(),
        at: "2026-11-26T10:00:00Z".parse().unwrap(),
    };
    let wire = serde_json::to_value(&event).unwrap();
    let expected = json!({
        "seq": 7, "type": "trigger", "data": {"trigger": "idle_wait"}, "at": "2026-11-26T10:00:00Z",
    });
    assert_eq!(wire, expected);
    assert_eq!(serde_json::from_value::<MatchEvent>(wire).unwrap(), event);
}

#[test]
fn a_field_left_out_stays_out_and_a_null_stays_null() {
    let withdrawn = EventBody::from(DrawOffer {
        by: None,
        accepted: None,
        pending: Some(false),
    });
    assert_eq!(withdrawn.payload(), json!({"by": null, "pending": false}));
    let done = EventBody::from(Draft {
        trigger: crate::triggers::TriggerKind::AfterMatch,
        text: None,
        spoke: Some(false),
    });
    assert_eq!(
        done.payload(),
        json!({"trigger": "after_match", "text": null, "spoke": false})
    );
}

#[test]
fn a_row_no_build_knows_is_left_out_not_fatal() {
    let row = |seq, kind: &str, payload| EventRow {
        seq,
        kind: kind.into(),
        payload,
        created_at: chrono::Utc::now(),
    };
    let rows = vec![
        row(1, "trigger", json!({"trigger": "before_match"})),
        row(2, "telepathy", json!({"thought": "e4"})),
        row(3, "move", json!({"ply": "one"})),
        row(4, "trigger", json!({"trigger": "idle_wait"})),
    ];
    let err = MatchEvent::try_from(rows[1].clone()).unwrap_err();
    assert_eq!((err.seq, err.kind.as_str()), (2, "telepathy"));
    let read: Vec<i64> = readable(rows).iter().map(|e| e.seq).collect();
    assert_eq!(read, [1, 4]);
}

/// The club room's page reads the events by hand (web/src/play.js): every
/// kind the server sends is shown there or named among its quiet ones, it
/// expects no kind the server does not send, and each payload field it reads
/// is one some payload has.
#[test]
fn the_page_reads_what_the_server_writes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let play = std::fs::read_to_string(format!("{root}/web/src/play.js")).unwrap();
    let rating = std::fs::read_to_string(format!("{root}/web/src/rating.js")).unwrap();
    let quoted_after = |text: &str, marker: &str| -> Vec<String> {
        text.match_indices(marker)
            .filter_map(|(at, _)| text[at + marker.len()..].split('"').next().map(str::to_string))
            .collect()
    };
    let mut read = quoted_after(&play, "case \"");
    read.extend(quoted_after(&play, "f.type === \""));
    let quiet_list = play
        .split("const QUIET_EVENTS = [")
        .nth(1)
        .and_then(|r| r.split(']').next());
    let quiet = quiet_list.expect("play.js names its quiet events");
    read.extend(quiet.split(',').map(|k| k.trim().trim_matches('"').to_string()));
    read.retain(|k| k != "state" && k != "error");
    let bodies = samples();
    let written: Vec<&str> = bodies.iter().map(EventBody::kind).collect();
    for kind in &written {
        assert!(
            read.iter().any(|r| r == kind),
            "play.js neither shows nor names `{kind}`"
        );
    }
    for kind in &read {
        assert!(
            written.contains(&kind.as_str()),
            "play.js reads `{kind}`, which no event is"
        );
    }
    let payloads = bodies
        .iter()
        .map(EventBody::payload)
        .chain(stored_rows().into_iter().map(|(_, p)| p));
    let fields: Vec<String> = payloads
        .filter_map(|p| p.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()))
        .flatten()
        .collect();
    let used = |text: &str| -> Vec<String> {
        let mut found = Vec::new();
        for (at, _) in text.match_indices("d.") {
            let before = text[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let name: String = text[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
        found
    };
    let read_fields: Vec<String> = used(&play).into_iter().chain(used(&rating)).collect();
    assert!(read_fields.len() > 10, "{read_fields:?}");
    for field in read_fields {
        assert!(
            fields.contains(&field),
            "the page reads `d.{field}`, which no payload has"
        );
    }
}
