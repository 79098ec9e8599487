//! `kibitz bench live` end to end, small: the load generator against the
//! server it starts, on a data dir of its own.

mod common;

use common::kibitz_in;

#[test]
fn a_small_live_load_loses_nothing_and_keeps_to_its_own_data_dir() {
    let cwd = tempfile::tempdir().unwrap();
    let report = cwd.path().join("live.json");
    let out = kibitz_in(cwd.path())
        .args(["bench", "live", "--matches", "4", "--seconds", "6"])
        .args([
            "--engine-nodes",
            "200",
            "--eval-nodes",
            "200",
            "--eval-deep-nodes",
            "2000",
            "--json",
        ])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");

    let figures: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert!(figures["moves"].as_u64() > Some(0), "{figures}");
    assert!(figures["events"].as_u64() > figures["moves"].as_u64(), "{figures}");
    for zero in ["lost", "duplicated", "match_errors"] {
        assert_eq!(figures[zero], 0, "{zero}: {figures}");
    }
    assert!(figures["move_reply_p99_ms"].as_f64() > Some(0.0), "{figures}");
    // The server's own view of the load: every move the bench had answered
    // was timed by the server too (a move that ends a game has no reply for
    // the bench to time, so the server may count more).
    let phases = &figures["server_phases"];
    let user_moves = phases["whole_load"]["user_move"]["count"].as_u64().unwrap_or(0);
    assert!(user_moves >= figures["moves"].as_u64().unwrap(), "{figures}");
    assert!(
        phases["whole_load"]["on_user_move"]["p99_ms"].as_f64() > Some(0.0),
        "{figures}"
    );
    let windows = phases["p99_ms_by_10s"]["user_move"].as_array().map_or(0, Vec::len);
    assert_eq!(windows, 1, "a 6 s load is one 10 s window: {figures}");
    // The same last status read gives the embedding counters: the load's
    // chat and memories ran the model or its memo.
    let embedding = &figures["embedding"];
    let texts = embedding["texts_embedded"].as_u64().unwrap_or(0) + embedding["memo_hits"].as_u64().unwrap_or(0);
    assert!(texts > 0, "{figures}");
    // And the deeper evaluation's books: every move asked for it, none shed
    // at this load (a shed move waits for nothing, so checked + shed +
    // waiting covers them all).
    let deep = &figures["deep_evaluations"];
    let asked = deep["asked"].as_u64().unwrap_or(0);
    assert!(asked >= figures["moves"].as_u64().unwrap(), "{figures}");
    let accounted = ["checked", "shed", "waiting"].map(|k| deep[k].as_u64().unwrap_or(0));
    assert!(accounted.iter().sum::<u64>() <= asked && accounted[1] == 0, "{figures}");
    // And how the personas' searches under the node budget ended.
    let searches = &figures["persona_searches"];
    let searched = searches["searched"].as_u64().unwrap_or(0);
    assert!(searched > 0 && searches["mean_nodes"].as_u64() > Some(0), "{figures}");
    assert!(searches["stopped_short"].as_u64() <= Some(searched), "{figures}");
    // The server's index lives in its temp data dir, not in the caller's
    // `data/` (the configuration the bench hands over names derived paths).
    assert!(!cwd.path().join("data").exists(), "the bench wrote into ./data");
}
