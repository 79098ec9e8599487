//! How long searches wait in an engine's queue before a worker takes them:
//! the sign of an engine that cannot keep up, read by admission control to
//! turn new matches away before the live ones slow down.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A reading older than this has faded to half: a queue drains in about a
/// search's time, so an old wait says little about the next job.
const HALF_LIFE: Duration = Duration::from_secs(1);
/// How much a new wait moves the smoothed one (one slow job among fast
/// ones is a blip, several in a row a backlog).
const WEIGHT: f64 = 0.3;

#[derive(Default)]
pub struct QueueClock {
    inner: Mutex<Readings>,
}

#[derive(Default)]
struct Readings {
    /// When each job sent and not yet taken by a worker was sent, oldest
    /// first (workers take jobs in the order they were sent).
    waiting: VecDeque<Instant>,
    smoothed_secs: f64,
    last_taken: Option<Instant>,
}

impl QueueClock {
    /// A job goes into the queue.
    pub fn queued(&self, at: Instant) {
        self.lock().waiting.push_back(at);
    }

    /// A job sent at `queued_at` never reached the queue (its workers were gone).
    pub fn unqueued(&self, queued_at: Instant) {
        self.lock().forget(queued_at);
    }

    /// A worker took a job sent at `queued_at`.
    pub fn taken(&self, queued_at: Instant, now: Instant) {
        let mut r = self.lock();
        r.forget(queued_at);
        crate::telemetry::engine_waited(now.saturating_duration_since(queued_at));
        let wait = now.saturating_duration_since(queued_at).as_secs_f64();
        let faded = r.faded_secs(now);
        r.smoothed_secs = faded + WEIGHT * (wait - faded);
        r.last_taken = Some(now);
    }

    /// The wait a job sent at `now` should expect, at least: how long the
    /// oldest job still queued has waited so far (a backlog, or stuck
    /// workers), or the recent waits, faded with their age, if longer.
    pub fn wait(&self, now: Instant) -> Duration {
        let r = self.lock();
        let oldest = r
            .waiting
            .front()
            .map_or(0.0, |t| now.saturating_duration_since(*t).as_secs_f64());
        Duration::from_secs_f64(r.faded_secs(now).max(oldest))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Readings> {
        // A panic while holding this lock left plain numbers behind.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Readings {
    fn forget(&mut self, queued_at: Instant) {
        match self.waiting.iter().position(|t| *t == queued_at) {
            Some(i) => drop(self.waiting.remove(i)),
            None => drop(self.waiting.pop_front()),
        }
    }

    fn faded_secs(&self, now: Instant) -> f64 {
        let Some(t) = self.last_taken else { return 0.0 };
        let age = now.saturating_duration_since(t).as_secs_f64();
        self.smoothed_secs * 0.5f64.powf(age / HALF_LIFE.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn an_idle_queue_waits_nothing() {
        let clock = QueueClock::default();
        assert_eq!(clock.wait(Instant::now()), Duration::ZERO);
        let t0 = Instant::now();
        clock.queued(t0);
        clock.taken(t0, t0 + ms(1));
        assert!(clock.wait(t0 + ms(1)) < ms(1));
    }

    #[test]
    fn a_backlog_shows_and_then_fades() {
        let clock = QueueClock::default();
        let t0 = Instant::now();
        // Ten jobs in a row each waited 800 ms.
        for i in 0..10 {
            clock.queued(t0 + ms(100 * i));
            clock.taken(t0 + ms(100 * i), t0 + ms(100 * i + 800));
        }
        let end = t0 + ms(1700);
        // (Readings fade between takes too, so a steady wait reads a
        // little low: an old reading must not outweigh the last one.)
        let wait = clock.wait(end);
        assert!(wait > ms(600) && wait <= ms(800), "{wait:?}");
        // Five seconds later, with nothing queued, it is forgotten.
        assert!(clock.wait(end + ms(5000)) < ms(30));
    }

    #[test]
    fn one_slow_job_among_fast_ones_is_a_blip() {
        let clock = QueueClock::default();
        let t0 = Instant::now();
        clock.queued(t0);
        clock.taken(t0, t0 + ms(1000));
        for i in 1..6 {
            clock.queued(t0 + ms(1000 + i));
            clock.taken(t0 + ms(1000 + i), t0 + ms(1001 + i));
        }
        assert!(clock.wait(t0 + ms(1010)) < ms(200));
    }

    #[test]
    fn jobs_no_worker_takes_wait_ever_longer() {
        let clock = QueueClock::default();
        let t0 = Instant::now();
        // The very first job, never taken.
        clock.queued(t0);
        assert!(clock.wait(t0 + ms(2000)) >= ms(2000));
        clock.taken(t0, t0 + ms(10));
        clock.queued(t0 + ms(10));
        assert!(clock.wait(t0 + ms(3010)) >= ms(3000));
        // Once taken, the stall ends.
        clock.taken(t0 + ms(10), t0 + ms(3010));
        assert!(clock.wait(t0 + ms(10_000)) < ms(100));
    }

    #[test]
    fn a_queue_behind_a_busy_worker_shows_before_any_job_is_taken() {
        let clock = QueueClock::default();
        let t0 = Instant::now();
        // Six jobs at once; one worker, 400 ms each.
        for _ in 0..6 {
            clock.queued(t0);
        }
        clock.taken(t0, t0);
        clock.taken(t0, t0 + ms(400));
        assert!(clock.wait(t0 + ms(600)) >= ms(600));
    }
}
