//! Configuration: files, environment, defaults and their checks.

use std::path::Path;

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
    let calibrated = Config::from_toml("", |_| None).unwrap();
    let club = SearchBudget::Nodes {
        nodes: 10_000,
        within_ms: Some(17),
    };
    assert_eq!(calibrated.search_budget(), club, "the calibrated budget by default");
    let timed = Config::from_toml("engine_movetime_ms = 50\nengine_nodes = 0", |_| None).unwrap();
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
        within_ms: Some(17),
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

#[test]
fn an_unknown_key_names_the_nearest() {
    let err = Config::from_toml("[recall]\nlimitt = 4", |_| None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("unknown key `recall.limitt`"), "{text}");
    assert!(text.contains("did you mean `recall.limit`?"), "{text}");
    let err = Config::from_toml("engine_movetim_ms = 5", |_| None).unwrap_err();
    assert!(err.to_string().contains("did you mean `engine_movetime_ms`?"), "{err}");
    let err = Config::from_toml("[limts]\nsockets_per_match = 1", |_| None).unwrap_err();
    assert!(err.to_string().contains("unknown key `limts`"), "{err}");
    // A key only the environment sets is not a file key.
    let err = Config::from_toml("[llm]\napi_key = \"x\"", |_| None).unwrap_err();
    assert!(err.to_string().contains("llm.api_key"), "{err}");
    // A table-valued setting is checked by its own shape, not as a section.
    let roles = Config::from_toml("[llm.main]\ntemperature = 0.1\nmax_tokens = 50", |_| None).unwrap();
    assert_eq!(roles.llm.main, RoleConfig::new(0.1, 50));
    assert!(Config::from_toml("[llm.main]\ntemprature = 0.1\nmax_tokens = 50", |_| None).is_err());
}

#[test]
fn each_value_knows_its_source() {
    let text = "listen = \"0.0.0.0:1\"\n[limits]\nsockets_per_match = 2\n";
    let env = |k: &str| match k {
        "KIBITZ_LISTEN" => Some("127.0.0.1:9999".to_string()),
        "KIBITZ_LEASE_MS" => Some("20000".to_string()),
        _ => None,
    };
    let path = Path::new("club.toml");
    let loaded = Config::resolve(Some(text), Some(path), &env).unwrap();
    let sources = &loaded.sources;
    assert_eq!(
        sources.of("listen"),
        Source::Env("KIBITZ_LISTEN"),
        "the environment beats the file"
    );
    assert_eq!(sources.of("limits.sockets_per_match"), Source::File(path.into()));
    assert_eq!(sources.of("cluster.lease_ms"), Source::Env("KIBITZ_LEASE_MS"));
    assert_eq!(sources.of("recall.limit"), Source::Default);
    assert_eq!(loaded.config.cluster.lease_ms, 20_000);
    let listing = loaded.listing();
    assert!(listing.contains("limits.sockets_per_match"), "{listing}");
    let line = listing.lines().find(|l| l.starts_with("listen ")).unwrap();
    assert!(
        line.contains("127.0.0.1:9999") && line.contains("(env KIBITZ_LISTEN)"),
        "{line}"
    );
}

#[test]
fn the_listing_hides_secrets_and_passwords() {
    let env = |k: &str| match k {
        "KIBITZ_ADMIN_TOKEN" => Some("a-very-long-admin-token".to_string()),
        "KIBITZ_LLM_API_KEY" => Some("sk-live-123".to_string()),
        "KIBITZ_DATABASE_URL" => Some("postgres://kibitz:hunter2@db/club".to_string()),
        _ => None,
    };
    let loaded = Config::resolve(None, None, &env).unwrap();
    let listing = loaded.listing();
    for secret in ["a-very-long-admin-token", "sk-live-123", "hunter2"] {
        assert!(!listing.contains(secret), "{listing}");
    }
    assert!(listing.contains("postgres://kibitz:***@db/club"), "{listing}");
    let admin = listing.lines().find(|l| l.starts_with("admin_token")).unwrap();
    assert!(admin.contains("(set, not shown)"), "{admin}");
    let key = listing.lines().find(|l| l.starts_with("llm.api_key")).unwrap();
    assert!(
        key.contains("(set, not shown)") && key.contains("KIBITZ_LLM_API_KEY"),
        "{key}"
    );
}

#[test]
fn a_misspelt_variable_is_named_with_the_nearest() {
    let vars = [
        "KIBITZ_LISTN",
        "KIBITZ_DATA_DIR",
        "KIBITZ_TEST_POSTGRES",
        "KIBITZ_CONFIG",
        "KIBITZ_WHATEVER_ELSE",
    ];
    let warnings = load::unknown_variables(vars.iter().map(|v| v.to_string()));
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("KIBITZ_LISTN") && warnings[0].contains("did you mean KIBITZ_LISTEN?"));
    assert!(warnings[1].contains("KIBITZ_WHATEVER_ELSE") && !warnings[1].contains("did you mean"));
}

#[test]
fn the_max_tokens_variable_caps_every_role() {
    let capped = Config::from_toml("", |k| (k == "KIBITZ_LLM_MAX_TOKENS").then(|| "64".into())).unwrap();
    let roles = [capped.llm.main, capped.llm.subconscious, capped.llm.moves];
    assert!(roles.iter().all(|r| r.max_tokens == 64), "{roles:?}");
    let file = Config::from_toml("[llm]\nmax_tokens = 32", |_| None).unwrap();
    assert_eq!(file.llm.moves.max_tokens, 32);
}

/// docs/configuration.md holds the table `kibitz config --docs` prints, made
/// from the declaration: a setting added, renamed or re-documented without
/// the docs following fails here.
#[test]
fn the_docs_table_is_the_declaration() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/configuration.md")).unwrap();
    let (begin, end) = ("<!-- settings:begin -->\n", "<!-- settings:end -->");
    let start = docs.find(begin).expect("the docs mark where the table begins") + begin.len();
    let stop = docs.find(end).expect("and where it ends");
    let table = docs_table();
    assert!(
        docs[start..stop] == table,
        "docs/configuration.md is not the declaration: run `kibitz config --docs` and paste its table between the markers"
    );
    for var in [
        "KIBITZ_LISTEN",
        "KIBITZ_REGISTRATION",
        "KIBITZ_LEASE_MS",
        "KIBITZ_CONSOLIDATE_CRON",
    ] {
        assert!(table.contains(var), "{var} is in the table");
    }
    assert!(table.lines().count() > 80, "every setting has a row");
}
