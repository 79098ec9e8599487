//! Admission control: while searches wait too long for an engine worker, or
//! the runtime's timers fire late (the cores are saturated, whatever by),
//! new matches are turned away (`busy`, with when to try
//! again), so the matches being played keep their pace; and what an
//! operator reads of it.

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
    /// How late the runtime's timers fire now (smoothed), in ms.
    pub runtime_lag_ms: f64,
    /// The lateness past which new matches are refused (0: never).
    pub busy_lag_ms: u64,
    /// The 90th percentile of the players' moves answered lately.
    pub move_reply_p90_ms: u64,
    /// The answer time past which new matches are refused (0: never).
    pub busy_move_reply_ms: u64,
    /// The 90th percentile of the recent waits for a commit.
    pub commit_wait_p90_ms: u64,
    /// The commit wait past which new matches are refused (0: never).
    pub busy_commit_wait_ms: u64,
    /// New matches refused as busy since start.
    pub refused_busy: u64,
    /// The most live matches one player holds, and how many players hold
    /// as many as the cap allows.
    pub most_live_matches_of_one_player: usize,
    pub players_at_match_cap: usize,
}

impl Runtime {
    /// Ok unless the engine or the server is behind its budget (a resumed
    /// match is no new load and is never asked).
    pub(super) fn admit_new_match(&self) -> Result<(), RuntimeError> {
        let limits = &self.svc.config.limits;
        let over = |budget_ms: u64, now: Duration| budget_ms > 0 && now > Duration::from_millis(budget_ms);
        let engine = self.svc.engine.queue_wait();
        let t = &self.svc.timings;
        let (lag, moves, commits) = (t.lag.now(), t.recent_move_p90(), t.recent_commit_p90());
        let (budget, behind) = if over(limits.busy_engine_wait_ms, engine) {
            ("engine_wait", engine)
        } else if over(limits.busy_lag_ms, lag) {
            // A backlog of CPU work drains slower than its lateness shows.
            ("lag", (lag * 20).max(Duration::from_secs(1)))
        } else if over(limits.busy_commit_wait_ms, commits) {
            ("commit_wait", (commits * 10).max(Duration::from_secs(1)))
        } else if over(limits.busy_move_reply_ms, moves) {
            ("move_reply", moves)
        } else {
            return Ok(());
        };
        self.refused_busy.fetch_add(1, Ordering::Relaxed);
        crate::telemetry::admission_refused(budget);
        Err(RuntimeError::Busy {
            wait_ms: behind.as_millis() as u64,
            retry_after_secs: retry_after(behind),
        })
    }

    /// A hint is a full-strength search: new load, turned away while the
    /// engine or the server is behind, as a new match is.
    pub(super) fn admit_command(&self, cmd: &super::UserCommand) -> Result<(), RuntimeError> {
        match cmd {
            super::UserCommand::Hint => self.admit_new_match(),
            _ => Ok(()),
        }
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
            runtime_lag_ms: self.svc.timings.lag.now().as_secs_f64() * 1000.0,
            busy_lag_ms: self.svc.config.limits.busy_lag_ms,
            move_reply_p90_ms: self.svc.timings.recent_move_p90().as_millis() as u64,
            busy_move_reply_ms: self.svc.config.limits.busy_move_reply_ms,
            commit_wait_p90_ms: self.svc.timings.recent_commit_p90().as_millis() as u64,
            busy_commit_wait_ms: self.svc.config.limits.busy_commit_wait_ms,
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
