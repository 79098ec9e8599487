//! The server's own view of a `bench live` run: its per-phase histograms
//! (`/api/admin/status` `timings`), snapshotted at the start of the load and
//! every `WINDOW`, so each window's p99 per phase (a user's move, the
//! persona's move choice, each trigger, the commit wait) stands beside the
//! bench's move->reply figures and says where a slow window went.

use std::time::Instant;

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::bench_live::WINDOW;
use super::live_server::LiveServer;
use kibitz::runtime::PhaseStats;

/// The phases shown per window: a move's own path.
const SHOWN: [&str; 5] = [
    "user_move",
    "persona_move",
    "on_user_move",
    "before_agent_move",
    "commit",
];

/// Snapshots of the server's timings: one now (before the load starts, so
/// it holds none of the load's moves), then one per `WINDOW` until
/// `deadline`; empty when the server's admin token is not known.
pub(super) async fn watch(server: &LiveServer, deadline: Instant) -> JoinHandle<Vec<Vec<PhaseStats>>> {
    let (http, base, token) = (reqwest::Client::new(), server.base.clone(), server.admin_token.clone());
    let first = match &token {
        Some(token) => snapshot(&http, &base, token).await,
        None => None,
    };
    tokio::spawn(async move {
        let (Some(token), Some(first)) = (token, first) else {
            return Vec::new();
        };
        let mut snapshots = vec![first];
        // The last window ends with the snapshot taken once the load is over.
        let mut next = Instant::now() + WINDOW;
        while next < deadline {
            tokio::time::sleep_until(next.into()).await;
            match snapshot(&http, &base, &token).await {
                Some(s) => snapshots.push(s),
                None => return Vec::new(),
            }
            next += WINDOW;
        }
        snapshots
    })
}

/// The server's timings now, if it answers.
pub(super) async fn snapshot(http: &reqwest::Client, base: &str, token: &str) -> Option<Vec<PhaseStats>> {
    let status: Value = http
        .get(format!("{base}/api/admin/status"))
        .bearer_auth(token)
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    serde_json::from_value(status["timings"].clone()).ok()
}

/// Prints the whole load's and each window's figures per phase, and
/// returns them for the JSON report (null without snapshots).
pub(super) fn report(snapshots: &[Vec<PhaseStats>]) -> Value {
    let (Some(first), Some(last)) = (snapshots.first(), snapshots.last()) else {
        return Value::Null;
    };
    if snapshots.len() < 2 {
        return Value::Null;
    }
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
