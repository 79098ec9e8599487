//! Configuration: files, environment, defaults and their checks.

use super::*;

#[test]
fn defaults_follow_the_data_dir() {
    let c = Config::from_toml("", |_| None).unwrap();
    assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(c.database_url, "sqlite://data/kibitz.db");
    assert_eq!(c.vectors_dir, PathBuf::from("data/vectors"));
    assert_eq!(c.models_dir, PathBuf::from("models"));
}

#[test]
fn printed_config_hides_passwords_and_tokens_in_urls() {
    let env = |k: &str| match k {
        "KIBITZ_DATABASE_URL" => Some("postgres://kibitz:hunter2@db/club".to_string()),
        "KIBITZ_QDRANT_URL" => Some("http://qdrant:6334?api-key=sesame".to_string()),
        "KIBITZ_LLM_URL" => Some("https://bot:opensesame@llm.example/v1".to_string()),
        _ => None,
    };
    let c = Config::from_toml("", env).unwrap();
    assert_eq!(c.database_url, "postgres://kibitz:hunter2@db/club", "kept for use");
    let shown = c.to_toml();
    for secret in ["hunter2", "sesame"] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(shown.contains("postgres://kibitz:***@db/club"), "{shown}");
}

#[test]
fn environment_beats_file() {
    let env = |k: &str| match k {
        "KIBITZ_LISTEN" => Some("127.0.0.1:9999".to_string()),
        "KIBITZ_DATA_DIR" => Some("/tmp/k".to_string()),
        _ => None,
    };
    let c = Config::from_toml("listen = \"0.0.0.0:1\"\nmodels_dir = \"/m\"", env).unwrap();
    assert_eq!(c.listen.port(), 9999);
    assert_eq!(c.database_url, "sqlite:///tmp/k/kibitz.db");
    assert_eq!(c.models_dir, PathBuf::from("/m"));
}

#[test]
fn a_node_budget_replaces_the_time_budget() {
    use crate::chess::engine::SearchBudget;
    let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/kibitz.toml")).unwrap();
    let shipped = Config::from_toml(&shipped, |_| None).unwrap();
    assert_eq!(
        shipped.limits,
        LimitsConfig::default(),
        "kibitz.toml shows the defaults"
    );
    let invite = Config::from_toml("[limits]\nregistration = \"invite\"", |_| None);
    assert!(invite.is_err(), "invite registration needs an admin token");
    let timed = Config::from_toml("engine_movetime_ms = 50", |_| None).unwrap();
    assert_eq!(timed.search_budget(), SearchBudget::Millis(50));
    let file = Config::from_toml("engine_movetime_ms = 50\nengine_nodes = 800", |_| None).unwrap();
    let capped = SearchBudget::Nodes {
        nodes: 800,
        within_ms: Some(50),
    };
    assert_eq!(file.search_budget(), capped, "the time caps a node budget");
    let env = Config::from_toml("", |k| (k == "KIBITZ_ENGINE_NODES").then(|| "300".into())).unwrap();
    let default_cap = SearchBudget::Nodes {
        nodes: 300,
        within_ms: Some(200),
    };
    assert_eq!(env.search_budget(), default_cap);
}

#[test]
fn bad_values_name_their_source() {
    let err = Config::from_toml("", |k| (k == "KIBITZ_LISTEN").then(|| "nope".into())).unwrap_err();
    assert!(err.to_string().contains("KIBITZ_LISTEN"), "{err}");
    let err = Config::from_toml("colour = 1", |_| None).unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
    let err = Config::from_toml("[recall]\nchat_query_model_share = 1.5", |_| None).unwrap_err();
    assert!(err.to_string().contains("recall.chat_query_model_share"), "{err}");
    let err = Config::from_toml("", |k| (k == "KIBITZ_MEMORY_WRITES_PER_MINUTE").then(|| "-1".into())).unwrap_err();
    assert!(err.to_string().contains("KIBITZ_MEMORY_WRITES_PER_MINUTE"), "{err}");
}
