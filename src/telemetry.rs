//! What an operator's monitoring reads: the server's metrics in
//! Prometheus's text format (`GET /metrics`), recorded through the
//! `metrics` facade where the work happens and rendered by
//! `metrics-exporter-prometheus`'s recorder, installed once by the server.
//! Every name is declared here, with its meaning; until a recorder is
//! installed (the CLI, the tests of one module) recording does nothing.

use std::sync::OnceLock;
use std::time::Duration;

use metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Latency buckets (seconds): a move's answer is a few ms to a few s.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Installs the recorder (once per process); later calls keep the first.
pub fn install() {
    HANDLE.get_or_init(|| {
        let handle = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &BUCKETS)
            .expect("the buckets are not empty")
            .install_recorder()
            .expect("no other metrics recorder is installed");
        describe();
        handle
    });
}

/// The exposition, if the recorder is installed.
pub fn render() -> Option<String> {
    HANDLE.get().map(PrometheusHandle::render)
}

fn describe() {
    describe_gauge!("kibitz_matches_live", "Matches with a live actor on this node.");
    describe_histogram!(
        "kibitz_move_reply_seconds",
        Unit::Seconds,
        "A player's move, from the match taking it to everything it caused (the persona's answer included) committed."
    );
    describe_histogram!(
        "kibitz_persona_move_seconds",
        Unit::Seconds,
        "The persona's move brain choosing a move."
    );
    describe_histogram!(
        "kibitz_trigger_seconds",
        Unit::Seconds,
        "One trigger (recall, decision, actions) by kind; its _count is the triggers fired."
    );
    describe_histogram!(
        "kibitz_commit_wait_seconds",
        Unit::Seconds,
        "A match command's wait for the commit of what it wrote."
    );
    describe_histogram!(
        "kibitz_engine_queue_wait_seconds",
        Unit::Seconds,
        "A search's wait in the engine's queue before a worker took it; its _count is the searches."
    );
    describe_counter!("kibitz_llm_calls_total", "Language-model calls by role and outcome.");
    describe_counter!(
        "kibitz_model_words_total",
        "Triggers whose words were asked of the language model, by how they came: on_time, late (the scripted voice spoke), dropped (a newer trigger, or a board the player left), failed."
    );
    describe_counter!(
        "kibitz_llm_tokens_total",
        "Language-model tokens by kind (prompt, completion)."
    );
    describe_counter!(
        "kibitz_memories_saved_total",
        "Memories written by the write policy, by outcome (inserted, reinforced, superseded)."
    );
    describe_counter!(
        "kibitz_memories_refused_total",
        "Memories the checks refused, by reason."
    );
    describe_counter!(
        "kibitz_admission_refusals_total",
        "New matches turned away as busy, by the budget that was over."
    );
    describe_counter!(
        "kibitz_rate_limited_total",
        "Requests refused by a rate limit, by limit."
    );
    describe_gauge!("kibitz_websockets_open", "WebSockets open on this node.");
    describe_counter!(
        "kibitz_relayed_requests_total",
        "Requests relayed to the node that holds their match."
    );
    describe_gauge!(
        "kibitz_match_leases_held",
        "Match leases this node holds (PostgreSQL clusters)."
    );
}

pub fn move_answered(took: Duration) {
    histogram!("kibitz_move_reply_seconds").record(took.as_secs_f64());
}

pub fn persona_moved(took: Duration) {
    histogram!("kibitz_persona_move_seconds").record(took.as_secs_f64());
}

pub fn trigger_done(trigger: &'static str, took: Duration) {
    histogram!("kibitz_trigger_seconds", "trigger" => trigger).record(took.as_secs_f64());
}

pub fn commit_waited(took: Duration) {
    histogram!("kibitz_commit_wait_seconds").record(took.as_secs_f64());
}

pub fn engine_waited(took: Duration) {
    histogram!("kibitz_engine_queue_wait_seconds").record(took.as_secs_f64());
}

pub fn llm_call(role: &'static str, outcome: &'static str, prompt_tokens: u64, completion_tokens: u64) {
    counter!("kibitz_llm_calls_total", "role" => role, "outcome" => outcome).increment(1);
    counter!("kibitz_llm_tokens_total", "kind" => "prompt").increment(prompt_tokens);
    counter!("kibitz_llm_tokens_total", "kind" => "completion").increment(completion_tokens);
}

pub fn model_words(outcome: &'static str) {
    counter!("kibitz_model_words_total", "outcome" => outcome).increment(1);
}

pub fn memory_saved(outcome: &'static str) {
    counter!("kibitz_memories_saved_total", "outcome" => outcome).increment(1);
}

pub fn memory_refused(reason: &'static str) {
    counter!("kibitz_memories_refused_total", "reason" => reason).increment(1);
}

pub fn admission_refused(budget: &'static str) {
    counter!("kibitz_admission_refusals_total", "budget" => budget).increment(1);
}

pub fn rate_limited(limit: &'static str) {
    counter!("kibitz_rate_limited_total", "limit" => limit).increment(1);
}

pub fn matches_live(n: usize) {
    gauge!("kibitz_matches_live").set(n as f64);
}

pub fn websocket_opened() {
    gauge!("kibitz_websockets_open").increment(1.0);
}

pub fn websocket_closed() {
    gauge!("kibitz_websockets_open").decrement(1.0);
}

pub fn relayed() {
    counter!("kibitz_relayed_requests_total").increment(1);
}

pub fn leases_held(n: usize) {
    gauge!("kibitz_match_leases_held").set(n as f64);
}
