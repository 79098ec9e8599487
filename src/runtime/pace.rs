//! How fast the server answers players' moves and commits their writes
//! lately: the 90th percentile of the last few hundred, read by admission
//! control; and how late the runtime's timers fire. The engine's
//! queue is one way to fall behind; a saturated CPU or slow commits are
//! others, and a player feels them all the same.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The answers kept: at a few hundred moves a second, about the last second.
const KEPT: usize = 256;
/// An answer older than this says nothing about now.
const STALE: Duration = Duration::from_secs(5);
/// Fewer recent answers than this are no sign of anything.
const ENOUGH: usize = 20;

#[derive(Default)]
pub struct Pace {
    answers: Mutex<VecDeque<(Instant, Duration)>>,
}

impl Pace {
    /// One more answer (or commit) took `took`.
    pub fn record(&self, took: Duration, now: Instant) {
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        if answers.len() == KEPT {
            answers.pop_front();
        }
        answers.push_back((now, took));
    }

    /// The 90th percentile of the answers of the last `STALE`, or zero when
    /// there are too few to tell.
    pub fn p90(&self, now: Instant) -> Duration {
        let answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        let mut recent: Vec<Duration> = answers
            .iter()
            .filter(|(at, _)| now.saturating_duration_since(*at) <= STALE)
            .map(|(_, took)| *took)
            .collect();
        if recent.len() < ENOUGH {
            return Duration::ZERO;
        }
        recent.sort_unstable();
        recent[recent.len() * 9 / 10]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recent_slow_tail_counts_and_fades() {
        let pace = Pace::default();
        let t0 = Instant::now();
        for i in 0..100u64 {
            let took = if i % 5 == 0 { 900 } else { 20 };
            pace.record(Duration::from_millis(took), t0);
        }
        assert_eq!(
            pace.p90(t0),
            Duration::from_millis(900),
            "a fifth of answers slow: the p90 is slow"
        );
        for _ in 0..KEPT {
            pace.record(Duration::from_millis(20), t0 + Duration::from_secs(1));
        }
        assert_eq!(
            pace.p90(t0 + Duration::from_secs(1)),
            Duration::from_millis(20),
            "old answers drop out"
        );
        assert_eq!(
            pace.p90(t0 + Duration::from_secs(10)),
            Duration::ZERO,
            "and fade with time"
        );
        let few = Pace::default();
        few.record(Duration::from_secs(3), t0);
        assert_eq!(few.p90(t0), Duration::ZERO, "one slow answer is no sign");
    }
}

/// How late the runtime's timers fire: a task asked to wake in 50 ms that
/// wakes after 80 was kept 30 ms from a core. When the cores are saturated
/// (searches, embeddings, commits, the matches' own work), every task waits
/// like this one, whatever the engine's queue says.
#[derive(Default)]
pub struct Lag {
    smoothed_us: std::sync::atomic::AtomicU64,
}

/// How often the watcher asks to wake.
const TICK: Duration = Duration::from_millis(50);
/// How much one tick's lateness moves the smoothed one (about the last
/// quarter second counts).
const LAG_WEIGHT: f64 = 0.2;

impl Lag {
    /// Wakes every `TICK` for good, noting how late.
    pub async fn watch(self: std::sync::Arc<Lag>) {
        loop {
            let asked = Instant::now();
            tokio::time::sleep(TICK).await;
            self.note(asked.elapsed().saturating_sub(TICK));
        }
    }

    fn note(&self, late: Duration) {
        use std::sync::atomic::Ordering;
        let before = self.smoothed_us.load(Ordering::Relaxed) as f64;
        let now = before + LAG_WEIGHT * (late.as_micros() as f64 - before);
        self.smoothed_us.store(now.max(0.0) as u64, Ordering::Relaxed);
    }

    /// The smoothed lateness of the runtime's timers.
    pub fn now(&self) -> Duration {
        Duration::from_micros(self.smoothed_us.load(std::sync::atomic::Ordering::Relaxed))
    }
}

#[cfg(test)]
mod lag_tests {
    use super::*;

    #[test]
    fn lateness_is_smoothed_and_recovers() {
        let lag = Lag::default();
        lag.note(Duration::from_millis(100));
        assert_eq!(lag.now(), Duration::from_millis(20), "one late tick moves it a fifth");
        for _ in 0..30 {
            lag.note(Duration::from_millis(100));
        }
        assert!(lag.now() > Duration::from_millis(99), "{:?}", lag.now());
        for _ in 0..30 {
            lag.note(Duration::ZERO);
        }
        assert!(lag.now() < Duration::from_millis(1), "{:?}", lag.now());
    }
}
