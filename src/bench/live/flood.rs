//! `kibitz bench live --flood N`: while the load plays, a script tries to
//! open N new matches a second (a new player each, the persona moving
//! first, so each one costs a trigger and an engine search), never more
//! than `IN_FLIGHT` at once. Counted by how the server answered.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// Requests the flood keeps open at most: a bounded script, not an
/// unbounded one that would measure the load generator.
const IN_FLIGHT: usize = 64;

#[derive(Default)]
pub(super) struct FloodTally {
    attempts: AtomicU64,
    created: AtomicU64,
    busy: AtomicU64,
    refused_other: AtomicU64,
    /// Ticks with `IN_FLIGHT` requests still open: not sent.
    skipped: AtomicU64,
    errors: AtomicU64,
}

impl FloodTally {
    pub(super) fn to_json(&self) -> Value {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        json!({
            "attempts": n(&self.attempts), "created": n(&self.created), "busy_503": n(&self.busy),
            "refused_other": n(&self.refused_other), "skipped_in_flight_full": n(&self.skipped),
            "errors": n(&self.errors),
        })
    }
}

/// Floods `base` from `start` until `deadline` at `per_second` attempts.
pub(super) async fn flood(base: String, personas: Vec<String>, per_second: f64, deadline: Instant) -> Arc<FloodTally> {
    let tally = Arc::new(FloodTally::default());
    let http = reqwest::Client::new();
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / per_second.max(0.01)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut n = 0usize;
    let mut tasks = tokio::task::JoinSet::new();
    while Instant::now() < deadline {
        tick.tick().await;
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tally.skipped.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        n += 1;
        let attempt = Attempt {
            http: http.clone(),
            base: base.clone(),
            persona: personas[n % personas.len()].clone(),
            n,
        };
        let tally = tally.clone();
        tasks.spawn(async move {
            tally.attempts.fetch_add(1, Ordering::Relaxed);
            let counter = match attempt.run().await {
                Ok(201) => &tally.created,
                Ok(503) => &tally.busy,
                Ok(_) => &tally.refused_other,
                Err(e) => {
                    tracing::debug!("a flood attempt failed: {e:#}");
                    &tally.errors
                }
            };
            counter.fetch_add(1, Ordering::Relaxed);
            drop(slot);
        });
    }
    while tasks.join_next().await.is_some() {}
    tally
}

struct Attempt {
    http: reqwest::Client,
    base: String,
    persona: String,
    n: usize,
}

impl Attempt {
    /// A new player, then a match with the persona moving first: the
    /// status of the match's creation.
    async fn run(&self) -> anyhow::Result<u16> {
        let player: Value = self
            .http
            .post(format!("{}/api/players", self.base))
            .json(&json!({ "name": format!("Flood {}", self.n) }))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        let token = player["token"].as_str().context("a token")?;
        let body = json!({ "player_id": player["id"], "persona_id": self.persona, "color": "black" });
        let created = self
            .http
            .post(format!("{}/api/matches", self.base))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await?;
        Ok(created.status().as_u16())
    }
}

/// A `busy` answer (503) and its Retry-After in seconds.
#[derive(Debug, thiserror::Error)]
#[error("the server is busy; retry after {0} s")]
pub(super) struct Busy(pub u64);

impl Busy {
    pub(super) fn from_headers(headers: &reqwest::header::HeaderMap) -> Busy {
        let secs = headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok()?.parse().ok());
        Busy(secs.unwrap_or(1))
    }
}
