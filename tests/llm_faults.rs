//! LLM endpoints that fail: 5xx, timeouts, slow first calls, dead preflights,
//! truncated and non-JSON answers, a match that ends mid-call, a call
//! nobody waits for; one-way failover, every call logged; the Anthropic
//! wire format; a persona's own endpoint. Fake servers speak the real
//! formats (a match served by one: tests/llm_in_match.rs).

mod common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use common::fake_llm::{Behaviour, FakeLlm};
use kibitz::config::{ApiKind, EndpointConfig, LlmConfig};
use kibitz::llm::{CallLog, CallRecord, ChatModel, ChatRequest, LlmError, LlmPool, Message};
use serde_json::json;

#[derive(Default)]
struct Log(Mutex<Vec<CallRecord>>);

#[async_trait]
impl CallLog for Log {
    async fn record(&self, call: CallRecord) {
        self.0.lock().unwrap().push(call);
    }
}

fn endpoint(name: &str, kind: ApiKind, url: &str) -> EndpointConfig {
    EndpointConfig {
        name: name.into(),
        kind,
        url: url.into(),
        model: format!("{name}-model"),
        api_key_env: None,
    }
}

fn config(endpoints: Vec<EndpointConfig>, timeout_secs: u64, first_timeout_secs: u64) -> LlmConfig {
    LlmConfig {
        endpoints,
        timeout_secs,
        first_timeout_secs,
        preflight_ms: 300,
        detect_ollama: false,
        ..LlmConfig::default()
    }
}

fn hello() -> ChatRequest {
    ChatRequest::new(vec![Message::system("be brief"), Message::user("hello")], 0.2, 32)
}

fn ok(text: &str) -> Behaviour {
    Behaviour::Answer(text.into())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_is_one_way_and_every_call_is_logged() {
    let (a, b) = (
        FakeLlm::openai(vec![Behaviour::Fail]).await,
        FakeLlm::openai(vec![ok("hi")]).await,
    );
    let log = Arc::new(Log::default());
    let cfg = config(
        vec![
            endpoint("a", ApiKind::Openai, &a.url),
            endpoint("b", ApiKind::Openai, &b.url),
        ],
        5,
        5,
    );
    let pool = LlmPool::start(&cfg, Some(log.clone())).await.unwrap();
    let session = pool.session(Some("m1".into()), "main", cfg.main);
    assert_eq!(session.chat(&hello()).await.unwrap().content, "hi");
    assert_eq!(session.serving().unwrap().0, "b");
    session.chat(&hello()).await.unwrap();
    assert_eq!(
        a.calls.chat.load(Ordering::SeqCst),
        1,
        "never back to a within the match"
    );
    assert_eq!(b.calls.chat.load(Ordering::SeqCst), 2);
    let calls = log.0.lock().unwrap().clone();
    assert_eq!(calls.len(), 3);
    assert!(calls[0].error.as_deref().unwrap().contains("500"), "{:?}", calls[0]);
    assert_eq!((calls[1].endpoint.as_str(), calls[1].usage.prompt_tokens), ("b", 42));
    assert!(calls[1].request.contains("hello") && calls[1].response == "hi");
    assert_eq!(calls[1].match_id.as_deref(), Some("m1"));
    // A new match starts from the top of the list again.
    let fresh = pool.session(Some("m2".into()), "main", cfg.main);
    fresh.chat(&hello()).await.unwrap();
    assert_eq!(a.calls.chat.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_that_fails_its_preflight_is_skipped() {
    let a = FakeLlm::openai_with_slow_models(vec![ok("from a")], Duration::from_secs(3)).await;
    let b = FakeLlm::openai(vec![ok("from b")]).await;
    let cfg = config(
        vec![
            endpoint("a", ApiKind::Openai, &a.url),
            endpoint("b", ApiKind::Openai, &b.url),
        ],
        5,
        5,
    );
    let pool = LlmPool::start(&cfg, None).await.unwrap();
    let session = pool.session(None, "main", cfg.main);
    assert_eq!(session.chat(&hello()).await.unwrap().content, "from b");
    assert_eq!(a.calls.chat.load(Ordering::SeqCst), 0);
    assert_eq!(a.calls.models.load(Ordering::SeqCst), 1);
    // The match's next session (say, the subconscious) uses that answer at once.
    let second = pool.session(None, "subconscious", cfg.subconscious);
    assert_eq!(second.chat(&hello()).await.unwrap().content, "from b");
    assert_eq!(
        a.calls.models.load(Ordering::SeqCst),
        1,
        "no second wait on the dead endpoint"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_call_may_be_slow_the_next_may_not() {
    let slow = Behaviour::Slow(Duration::from_millis(1300), "warm now".into());
    let a = FakeLlm::openai(vec![slow]).await;
    let cfg = config(vec![endpoint("a", ApiKind::Openai, &a.url)], 1, 5);
    let pool = LlmPool::start(&cfg, None).await.unwrap();
    let session = pool.session(None, "main", cfg.main);
    assert_eq!(session.chat(&hello()).await.unwrap().content, "warm now");
    let second = session.chat(&hello()).await;
    assert!(matches!(second, Err(LlmError::Timeout(_))), "{second:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_answers_are_errors_but_not_failovers() {
    for garbage in [Behaviour::Truncated, Behaviour::NotJson] {
        let a = FakeLlm::openai(vec![garbage.clone()]).await;
        let b = FakeLlm::openai(vec![ok("unused")]).await;
        let cfg = config(
            vec![
                endpoint("a", ApiKind::Openai, &a.url),
                endpoint("b", ApiKind::Openai, &b.url),
            ],
            5,
            5,
        );
        let pool = LlmPool::start(&cfg, None).await.unwrap();
        let err = pool.session(None, "main", cfg.main).chat(&hello()).await.unwrap_err();
        assert!(matches!(err, LlmError::BadReply(_)), "{garbage:?}: {err}");
        assert_eq!(
            b.calls.chat.load(Ordering::SeqCst),
            0,
            "the endpoint answered; the agent decides"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_a_match_cancels_a_call_in_flight() {
    let a = FakeLlm::openai(vec![Behaviour::Slow(Duration::from_secs(10), "too late".into())]).await;
    let cfg = config(vec![endpoint("a", ApiKind::Openai, &a.url)], 30, 30);
    let pool = LlmPool::start(&cfg, None).await.unwrap();
    let session = pool.session(None, "main", cfg.main);
    let caller = session.clone();
    let call = tokio::spawn(async move { caller.chat(&hello()).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    session.cancel();
    let result = tokio::time::timeout(Duration::from_secs(2), call)
        .await
        .expect("returns at once")
        .unwrap();
    assert!(matches!(result, Err(LlmError::Cancelled)), "{result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_nobody_waits_for_any_more_is_still_logged() {
    let a = FakeLlm::openai(vec![Behaviour::Slow(Duration::from_secs(10), "too late".into())]).await;
    let cfg = config(vec![endpoint("a", ApiKind::Openai, &a.url)], 30, 30);
    let log = Arc::new(Log::default());
    let pool = LlmPool::start(&cfg, Some(log.clone())).await.unwrap();
    let session = pool.session(Some("m1".into()), "main", cfg.main);
    // A deadline the call misses: its future is dropped mid-call.
    let missed = tokio::time::timeout(Duration::from_millis(300), session.chat(&hello())).await;
    assert!(missed.is_err());
    for _ in 0..50 {
        if !log.0.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let calls = log.0.lock().unwrap().clone();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let error = calls[0].error.clone().unwrap_or_default();
    assert!(error.starts_with("abandoned"), "{error}");
    assert!(
        calls[0].latency_ms >= 200 && calls[0].request.contains("hello"),
        "{:?}",
        calls[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_client_speaks_messages() {
    let a = FakeLlm::anthropic(vec![ok("Bonjour.")]).await;
    // SAFETY: this test binary reads this variable only here.
    unsafe { std::env::set_var("KIBITZ_TEST_ANTHROPIC_KEY", "sk-test-123") };
    let mut ep = endpoint("claude", ApiKind::Anthropic, &a.url);
    ep.api_key_env = Some("KIBITZ_TEST_ANTHROPIC_KEY".into());
    let cfg = config(vec![ep], 5, 5);
    let pool = LlmPool::start(&cfg, None).await.unwrap();
    let reply = pool.session(None, "main", cfg.main).chat(&hello()).await.unwrap();
    assert_eq!(reply.content, "Bonjour.");
    assert_eq!((reply.usage.prompt_tokens, reply.usage.completion_tokens), (40, 7));
    let body = a.calls.bodies.lock().unwrap()[0].clone();
    assert_eq!(body["system"], "be brief", "the system prompt goes apart");
    assert_eq!(body["messages"], json!([{"role": "user", "content": "hello"}]));
    assert_eq!(body["model"], "claude-model");
    let headers = a.calls.headers.lock().unwrap()[0].clone();
    assert_eq!(headers["x-api-key"], "sk-test-123");
    assert_eq!(headers["anthropic-version"], "2023-06-01");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_endpoint_is_tried_again_after_a_failure() {
    let a = FakeLlm::openai(vec![Behaviour::Fail, ok("back")]).await;
    let cfg = config(vec![endpoint("a", ApiKind::Openai, &a.url)], 5, 5);
    let pool = LlmPool::start(&cfg, None).await.unwrap();
    let session = pool.session(None, "main", cfg.main);
    assert!(matches!(
        session.chat(&hello()).await,
        Err(LlmError::Status { status: 500, .. })
    ));
    assert_eq!(session.chat(&hello()).await.unwrap().content, "back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persona_may_prefer_an_endpoint_and_its_own_sampling() {
    let (a, b) = (
        FakeLlm::openai(vec![ok("from a")]).await,
        FakeLlm::openai(vec![ok("from b")]).await,
    );
    let cfg = config(
        vec![
            endpoint("a", ApiKind::Openai, &a.url),
            endpoint("b", ApiKind::Openai, &b.url),
        ],
        5,
        5,
    );
    let pool = LlmPool::start(&cfg, None).await.unwrap();
    let card: kibitz::personas::PersonaLlm = toml::from_str("endpoint = \"b\"\ntemperature = 1.1").unwrap();
    let sampling = card.sampling(cfg.main);
    assert_eq!((sampling.temperature, sampling.max_tokens), (1.1, cfg.main.max_tokens));
    let session = pool.session_from(None, "main", sampling, card.endpoint.as_deref());
    assert_eq!(session.chat(&hello()).await.unwrap().content, "from b");
    assert_eq!(a.calls.chat.load(Ordering::SeqCst), 0);
    // An unknown name means the usual order.
    let usual = pool.session_from(None, "main", sampling, Some("nowhere"));
    assert_eq!(usual.chat(&hello()).await.unwrap().content, "from a");
}
