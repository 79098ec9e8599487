//! `kibitz memories` against a data dir a real server wrote.

mod common;

use common::*;
use serde_json::json;
use sha2::Digest;

fn kibitz(server: &Server, args: &[&str]) -> (bool, String, String) {
    server.run_cli(args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_can_be_reviewed_from_the_terminal() {
    let mut server = Server::start().await;
    let player = server.new_player("Cleo").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let chat = json!({ "text": "I collect antique chess clocks" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    assert_eq!(server.post(&format!("/api/matches/{m}/resign"), json!({})).await.0, 200);

    // One process owns a data dir.
    let (ok, _, err) = kibitz(&server, &["memories", "--player", "Cleo"]);
    assert!(!ok && err.contains("in use by another kibitz process"), "{err}");
    server.kill();

    let (ok, out, err) = kibitz(&server, &["memories", "--player", "Cleo"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("memories about Cleo") && out.contains("antique chess clocks"),
        "{out}"
    );
    let id = out
        .lines()
        .find(|l| l.contains("antique"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();

    let (ok, out, err) = kibitz(
        &server,
        &[
            "memories",
            "search",
            "--player",
            "Cleo",
            "clock collection",
            "--limit",
            "1",
        ],
    );
    assert!(ok && out.contains(&id), "{out}{err}");
    let (ok, out, _) = kibitz(&server, &["memories", "pin", &id]);
    assert!(ok && out.contains("pinned"), "{out}");
    let (ok, out, _) = kibitz(&server, &["memories", "list", "--player", "Cleo", "--pinned"]);
    assert!(ok && out.contains(&id) && out.starts_with("1 memory about"), "{out}");

    let file = server.data_path().join("export.json");
    let (ok, _, err) = kibitz(
        &server,
        &[
            "memories",
            "export",
            "--player",
            "Cleo",
            "--out",
            file.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    let exported: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(
        exported["memories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["memory"]["id"] == id.as_str())
    );

    let (ok, _, err) = kibitz(&server, &["memories", "delete", &id]);
    assert!(ok, "{err}");
    let (_, out, _) = kibitz(&server, &["memories", "--player", "Cleo"]);
    assert!(!out.contains("antique"), "{out}");
    let (ok, _, err) = kibitz(&server, &["memories", "reindex"]);
    assert!(ok && err.contains("re-indexed"), "{err}");
    let (ok, _, err) = kibitz(&server, &["memories", "show", "not-an-id"]);
    assert!(!ok && err.contains("not-an-id"), "{err}");
}

/// Vectors of two models do not compare: an index another embedding model
/// made (its record says so) is embedded again at start, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_made_by_another_model_is_embedded_again() {
    if common::skip_unless_embedded("an_index_made_by_another_model_is_embedded_again") {
        return;
    }
    let mut server = Server::start_capturing_log(&[]).await;
    let player = server.new_player("Ines").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let chat = json!({ "text": "I restore old wooden chess sets" });
    assert_eq!(server.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    server.kill();

    let record = server.data_path().join("index-model.sha256");
    let model = std::fs::read(repo().join("models/all-MiniLM-L6-v2/model_qint8.onnx")).unwrap();
    let digest: String = sha2::Sha256::digest(model).iter().map(|b| format!("{b:02x}")).collect();
    let written = std::fs::read_to_string(&record).unwrap();
    assert!(written.starts_with(&format!("{digest} readers ")), "{written}");

    let rebuilt = |log: &str| log.matches("made by another embedding model").count();
    assert_eq!(rebuilt(&server.log_text()), 0, "a new data dir is the current model's");
    std::fs::write(&record, "0".repeat(64)).unwrap();
    server.launch().await;
    server.kill();
    assert_eq!(rebuilt(&server.log_text()), 1, "{}", server.log_text());
    assert_eq!(std::fs::read_to_string(&record).unwrap(), written);
    server.launch().await;
    server.kill();
    assert_eq!(rebuilt(&server.log_text()), 1, "embedded once");
    // An index whose memories were tagged before these readers (a record
    // of the model alone, as older versions wrote) is tagged again.
    std::fs::write(&record, format!("{digest}\n")).unwrap();
    server.launch().await;
    server.kill();
    assert_eq!(rebuilt(&server.log_text()), 2, "tagged again");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), written);
    let (ok, out, err) = kibitz(
        &server,
        &["memories", "search", "--player", "Ines", "wooden chess sets"],
    );
    assert!(ok && out.contains("wooden chess sets"), "{out}{err}");
}

/// An index holding points whose memories SQL does not have (here: another
/// data dir's vector directory) is made to match SQL at start, whether the
/// model check rebuilds it or the count check repairs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn points_with_no_memory_in_sql_leave_the_index() {
    if common::skip_unless_embedded("points_with_no_memory_in_sql_leave_the_index") {
        return;
    }
    const ADMIN: &str = "admin-token-for-the-index-test";
    let mut first = Server::start().await;
    let player = first.new_player("Odo").await;
    let (m, _) = first.new_match(&player, "pip", "white").await;
    let chat = json!({ "text": "I breed racing pigeons on my roof" });
    assert_eq!(first.post(&format!("/api/matches/{m}/chat"), chat).await.0, 200);
    first.kill();
    let record = std::fs::read(first.data_path().join("index-model.sha256")).unwrap();

    for model_recorded in [false, true] {
        let mut second = Server::start_with(&[("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
        second.kill();
        let (data, vectors) = (second.data_path(), second.data_path().join("vectors"));
        std::fs::remove_dir_all(&vectors).unwrap();
        copy_dir(&first.data_path().join("vectors"), &vectors);
        match model_recorded {
            true => std::fs::write(data.join("index-model.sha256"), &record).unwrap(),
            false => std::fs::remove_file(data.join("index-model.sha256")).unwrap(),
        }
        // As after a clean shutdown: only the counts tell.
        std::fs::remove_file(data.join("kibitz.running")).unwrap();
        second.launch().await;
        let (status, s) = second.get_as("/api/admin/status", ADMIN).await;
        assert_eq!(status, 200, "{s}");
        assert_eq!(
            s["memories_sql"], s["memories_index"],
            "model recorded: {model_recorded}: {s}"
        );
        second.kill();
    }
}
