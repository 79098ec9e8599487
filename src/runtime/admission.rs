//! Admission control: while searches wait too long for an engine worker,
//! new matches are turned away (`busy`, with when to try again), so the
//! matches being played keep their pace; and what an operator reads of it.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{Runtime, RuntimeError};

/// What admission control sees now (admin status).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct AdmissionView {
    /// How long a search asked for now should expect to wait for a worker.
    pub engine_queue_wait_ms: u64,
    /// The wait past which new matches are refused (0: never).
    pub busy_engine_wait_ms: u64,
    /// New matches refused as busy since start.
    pub refused_busy: u64,
    /// The most live matches one player holds, and how many players hold
    /// as many as the cap allows.
    pub most_live_matches_of_one_player: usize,
    pub players_at_match_cap: usize,
}

impl Runtime {
    /// Ok unless the engine is behind its budget (a resumed match is no new
    /// load and is never asked).
    pub(super) fn admit_new_match(&self) -> Result<(), RuntimeError> {
        let budget = self.svc.config.limits.busy_engine_wait_ms;
        let wait = self.svc.engine.queue_wait();
        if budget == 0 || wait <= Duration::from_millis(budget) {
            return Ok(());
        }
        self.refused_busy.fetch_add(1, Ordering::Relaxed);
        Err(RuntimeError::Busy {
            wait_ms: wait.as_millis() as u64,
            retry_after_secs: retry_after(wait),
        })
    }

    pub fn admission(&self) -> AdmissionView {
        let mut per_player: HashMap<_, usize> = HashMap::new();
        for live in self.live.lock().expect("registry lock").values() {
            *per_player.entry(live.owner).or_default() += 1;
        }
        let cap = self.svc.config.limits.live_matches_per_player as usize;
        AdmissionView {
            engine_queue_wait_ms: self.svc.engine.queue_wait().as_millis() as u64,
            busy_engine_wait_ms: self.svc.config.limits.busy_engine_wait_ms,
            refused_busy: self.refused_busy.load(Ordering::Relaxed),
            most_live_matches_of_one_player: per_player.values().copied().max().unwrap_or(0),
            players_at_match_cap: match cap {
                0 => 0,
                _ => per_player.values().filter(|n| **n >= cap).count(),
            },
        }
    }
}

/// A backlog drains in about its own length once nothing new is added:
/// twice that, whole seconds, at least one and at most a minute.
fn retry_after(wait: Duration) -> u64 {
    (wait.as_secs_f64() * 2.0).ceil().clamp(1.0, 60.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_grows_with_the_backlog_within_bounds() {
        assert_eq!(retry_after(Duration::from_millis(10)), 1);
        assert_eq!(retry_after(Duration::from_millis(1200)), 3);
        assert_eq!(retry_after(Duration::from_secs(600)), 60);
    }
}
