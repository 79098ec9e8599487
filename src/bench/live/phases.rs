//! The server's own view of a `bench live` run: its per-phase histograms
//! (`/api/admin/status` `timings`), snapshotted at the start of the load and
//! every `WINDOW`, so each window's p99 per phase (a user's move, the
//! persona's move choice, each trigger, the commit wait) stands beside the
//! bench's move->reply figures and says where a slow window went. The last
//! status read also gives the run's embedding counters.

use std::time::Instant;

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::WINDOW;
use super::server::LiveServer;
use kibitz::runtime::PhaseStats;

/// The phases shown per window: a move's own path.
const SHOWN: [&str; 5] = [
    "user_move",
    "persona_move",
    "on_user_move",
    "before_agent_move",
    "commit",
];

/// The server's timings, snapshotted through the load.
pub(super) struct PhaseWatch {
    task: JoinHandle<Vec<Vec<PhaseStats>>>,
    source: Option<Source>,
}

/// Where the snapshots come from: the server's admin status.
#[derive(Clone)]
struct Source {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Source {
    /// The server's admin status now, if it answers.
    async fn status(&self) -> Option<Value> {
        let res = self
            .http
            .get(format!("{}/api/admin/status", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .ok()?;
        res.json().await.ok()
    }

    /// The server's timings now, if it answers.
    async fn snapshot(&self) -> Option<Vec<PhaseStats>> {
        timings_of(&self.status().await?)
    }
}

fn timings_of(status: &Value) -> Option<Vec<PhaseStats>> {
    serde_json::from_value(status["timings"].clone()).ok()
}

/// What the watch saw: the timings' snapshots, and the server's embedding
/// counters once the load is over (null when unknown).
pub(super) struct Watched {
    pub(super) snapshots: Vec<Vec<PhaseStats>>,
    pub(super) embedding: Value,
    /// The deeper evaluation's books at the end (`deep_evaluations`).
    pub(super) deep: Value,
    /// How the personas' searches ended (`persona_searches`).
    pub(super) searches: Value,
}

/// One snapshot now (before the load starts, so it holds none of the
/// load's moves), then one per `WINDOW` until `deadline`; nothing when the
/// server's admin token is not known.
pub(super) async fn watch(server: &LiveServer, deadline: Instant) -> PhaseWatch {
    let source = server.admin_token.clone().map(|token| Source {
        http: reqwest::Client::new(),
        base: server.base.clone(),
        token,
    });
    let first = match &source {
        Some(source) => source.snapshot().await,
        None => None,
    };
    let polled = source.clone();
    let task = tokio::spawn(async move {
        let (Some(source), Some(first)) = (polled, first) else {
            return Vec::new();
        };
        let mut snapshots = vec![first];
        let mut next = Instant::now() + WINDOW;
        while next < deadline {
            tokio::time::sleep_until(next.into()).await;
            match source.snapshot().await {
                Some(s) => snapshots.push(s),
                None => return Vec::new(),
            }
            next += WINDOW;
        }
        snapshots
    });
    PhaseWatch { task, source }
}

impl PhaseWatch {
    /// Every snapshot, the last taken now (once the load is over), or
    /// none if the server did not answer one; and, from that last status,
    /// the embedding counters.
    pub(super) async fn finish(self) -> Watched {
        let mut snapshots = self.task.await.unwrap_or_default();
        let last = match &self.source {
            Some(source) => source.status().await,
            None => None,
        };
        match last.as_ref().and_then(timings_of) {
            Some(timings) if !snapshots.is_empty() => snapshots.push(timings),
            _ => snapshots.clear(),
        }
        let embedding = last.as_ref().map_or(Value::Null, |status| status["embedding"].clone());
        let of = |key: &str| last.as_ref().map_or(Value::Null, |status| status[key].clone());
        Watched {
            snapshots,
            embedding,
            deep: of("deep_evaluations"),
            searches: of("persona_searches"),
        }
    }
}

/// Prints the whole load's and each window's figures per phase, and
/// returns them for the JSON report (null without snapshots).
pub(super) fn report(snapshots: &[Vec<PhaseStats>]) -> Value {
    if snapshots.len() < 2 {
        return Value::Null;
    }
    let (first, last) = (&snapshots[0], &snapshots[snapshots.len() - 1]);
    let mut whole = serde_json::Map::new();
    for now in last {
        let run = since(now, first);
        if run.count > 0 {
            println!(
                "live: server {}: {} times, p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
                run.phase, run.count, run.p50_ms, run.p99_ms, run.max_ms
            );
            whole.insert(
                run.phase.clone(),
                json!({ "count": run.count, "p50_ms": run.p50_ms, "p99_ms": run.p99_ms, "max_ms": run.max_ms }),
            );
        }
    }
    let mut by_window = serde_json::Map::new();
    for name in SHOWN {
        let p99s: Vec<f64> = snapshots
            .windows(2)
            .map(|w| find(&w[1], name).map_or(0.0, |now| since(now, &w[0]).p99_ms))
            .collect();
        let shown: Vec<String> = p99s.iter().map(|p| format!("{p:.1}")).collect();
        println!(
            "live: server {name} p99 by {} s: {} ms",
            WINDOW.as_secs(),
            shown.join(" / ")
        );
        by_window.insert(name.to_string(), json!(p99s));
    }
    json!({ "whole_load": whole, "p99_ms_by_10s": by_window })
}

fn find<'a>(snapshot: &'a [PhaseStats], name: &str) -> Option<&'a PhaseStats> {
    snapshot.iter().find(|p| p.phase == name)
}

fn find_or_empty(snapshot: &[PhaseStats], name: &str) -> PhaseStats {
    find(snapshot, name)
        .cloned()
        .unwrap_or_else(|| PhaseStats::from_buckets(name, Vec::new()))
}

/// `now`'s samples recorded after `earlier` (a phase with no earlier snapshot had none).
fn since(now: &PhaseStats, earlier: &[PhaseStats]) -> PhaseStats {
    now.since(&find_or_empty(earlier, &now.phase))
}
