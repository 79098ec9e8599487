//! Where a live server's time goes, phase by phase: a latency histogram per
//! phase of a match's work (a user's move, the persona's move choice, each
//! trigger, the wait for the commit), recorded by the match actors as they
//! run and read by `GET /api/admin/status` and `kibitz bench live`. One
//! atomic add per sample, so timing costs nothing beside the work it times;
//! the counts only grow, so a reader takes the difference of two snapshots
//! for a window of its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::triggers::TriggerKind;

/// One phase of a match's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// A user's move, from the match taking it to everything it caused
    /// (the persona's answer included) being committed: the server's part of
    /// move -> reply.
    UserMove,
    /// The persona's move brain choosing a move (the engine's search).
    PersonaMove,
    /// A command's wait for the commit of what it wrote.
    Commit,
    /// One trigger, from its announcement to its log queued.
    Trigger(TriggerKind),
}

const TRIGGERS: [TriggerKind; 6] = [
    TriggerKind::BeforeMatch,
    TriggerKind::OnUserInput,
    TriggerKind::OnUserMove,
    TriggerKind::BeforeAgentMove,
    TriggerKind::IdleWait,
    TriggerKind::AfterMatch,
];

const PHASES: usize = 9;

impl Phase {
    fn index(self) -> usize {
        match self {
            Phase::UserMove => 0,
            Phase::PersonaMove => 1,
            Phase::Commit => 2,
            // Exhaustive, so a new kind of trigger cannot be filed under another.
            Phase::Trigger(kind) => match kind {
                TriggerKind::BeforeMatch => 3,
                TriggerKind::OnUserInput => 4,
                TriggerKind::OnUserMove => 5,
                TriggerKind::BeforeAgentMove => 6,
                TriggerKind::IdleWait => 7,
                TriggerKind::AfterMatch => 8,
            },
        }
    }

    fn all() -> impl Iterator<Item = Phase> {
        [Phase::UserMove, Phase::PersonaMove, Phase::Commit]
            .into_iter()
            .chain(TRIGGERS.map(Phase::Trigger))
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::UserMove => "user_move",
            Phase::PersonaMove => "persona_move",
            Phase::Commit => "commit",
            Phase::Trigger(kind) => kind.as_str(),
        }
    }
}

/// Every phase's histogram, and the recent pace of answered moves.
#[derive(Default)]
pub struct PhaseTimes {
    phases: [Histogram; PHASES],
    pace: super::pace::Pace,
    commits: super::pace::Pace,
    /// How late the runtime's timers fire (`Lag::watch`, started with the services).
    pub lag: std::sync::Arc<super::pace::Lag>,
}

impl PhaseTimes {
    pub fn record(&self, phase: Phase, took: Duration) {
        self.phases[phase.index()].record(took);
        match phase {
            Phase::UserMove => {
                self.pace.record(took, std::time::Instant::now());
                crate::telemetry::move_answered(took);
            }
            Phase::Commit => {
                self.commits.record(took, std::time::Instant::now());
                crate::telemetry::commit_waited(took);
            }
            Phase::PersonaMove => crate::telemetry::persona_moved(took),
            Phase::Trigger(kind) => crate::telemetry::trigger_done(kind.as_str(), took),
        }
    }

    /// The 90th percentile of the players' moves answered lately (zero when
    /// too few were).
    pub fn recent_move_p90(&self) -> Duration {
        self.pace.p90(std::time::Instant::now())
    }

    /// The same for the waits for a commit: every match's writes go through
    /// one writer, so when it falls behind, every move waits on it.
    pub fn recent_commit_p90(&self) -> Duration {
        self.commits.p90(std::time::Instant::now())
    }

    /// Each phase that has a sample, by name.
    pub fn snapshot(&self) -> Vec<PhaseStats> {
        Phase::all()
            .map(|p| self.phases[p.index()].stats(p.name()))
            .filter(|s| s.count > 0)
            .collect()
    }
}

/// Sub-buckets per power of two: a sample is placed within 1/8 of its
/// value (12.5%), from 1 microsecond to ~3 days in 288 buckets (longer
/// samples count in the last).
const SUB_BITS: u32 = 3;
const SUB: u64 = 1 << SUB_BITS;
const BUCKETS: usize = (SUB as usize) * 36;

/// Counts per bucket of microseconds.
struct Histogram {
    counts: [AtomicU64; BUCKETS],
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// Values below `SUB` have a bucket each; above, each power of two is cut
/// into `SUB` equal parts.
fn bucket_of(micros: u64) -> usize {
    if micros < SUB {
        return micros as usize;
    }
    let octave = 63 - micros.leading_zeros(); // >= SUB_BITS
    let sub = (micros >> (octave - SUB_BITS)) & (SUB - 1);
    let index = SUB + u64::from(octave - SUB_BITS) * SUB + sub;
    (index as usize).min(BUCKETS - 1)
}

/// The smallest value past bucket `index` (its exclusive upper bound).
fn bucket_end(index: usize) -> u64 {
    let index = index as u64;
    if index < SUB {
        return index + 1;
    }
    let (octave, sub) = ((index - SUB) / SUB, (index - SUB) % SUB);
    (SUB + sub + 1) << octave
}

impl Histogram {
    fn record(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.counts[bucket_of(micros)].fetch_add(1, Ordering::Relaxed);
    }

    fn stats(&self, name: &str) -> PhaseStats {
        let counts: Vec<u64> = self.counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        PhaseStats::from_counts(name, &counts)
    }
}

/// One phase's figures. Quantiles are the upper end of the bucket they
/// fall in, so they err high by at most 12.5%, never low.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct PhaseStats {
    pub phase: String,
    pub count: u64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// The non-empty buckets as [exclusive upper bound in microseconds,
    /// count], for a reader that wants a window's figures (the difference
    /// of two snapshots).
    #[schema(value_type = Vec<Vec<u64>>)]
    pub buckets: Vec<(u64, u64)>,
}

impl PhaseStats {
    /// Figures from per-bucket counts (indexed as `bucket_of` places them).
    fn from_counts(phase: &str, counts: &[u64]) -> PhaseStats {
        let buckets: Vec<(u64, u64)> = counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (bucket_end(i), *n))
            .collect();
        PhaseStats::from_buckets(phase, buckets)
    }

    /// Figures from [upper bound, count] pairs in ascending order.
    pub fn from_buckets(phase: &str, buckets: Vec<(u64, u64)>) -> PhaseStats {
        let count = buckets.iter().map(|(_, n)| n).sum();
        let quantile = |q: f64| -> f64 {
            // The rank of the q-th sample, from 1.
            let rank = ((count as f64 * q).ceil() as u64).max(1);
            let mut seen = 0;
            for (end, n) in &buckets {
                seen += n;
                if seen >= rank {
                    return *end as f64 / 1e3;
                }
            }
            0.0
        };
        PhaseStats {
            phase: phase.to_string(),
            count,
            p50_ms: quantile(0.5),
            p90_ms: quantile(0.9),
            p99_ms: quantile(0.99),
            max_ms: quantile(1.0),
            buckets,
        }
    }

    /// The figures of the samples recorded after `earlier` (a snapshot of
    /// the same phase taken before this one).
    pub fn since(&self, earlier: &PhaseStats) -> PhaseStats {
        let buckets = self
            .buckets
            .iter()
            .map(|(end, n)| {
                let before = earlier.buckets.iter().find(|(e, _)| e == end).map_or(0, |(_, m)| *m);
                (*end, n.saturating_sub(before))
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        PhaseStats::from_buckets(&self.phase, buckets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_falls_in_a_bucket_that_holds_it_within_an_eighth() {
        let mut values: Vec<u64> = (0..5000).collect();
        values.extend((0..37).map(|shift| (1u64 << shift) + 12345 % (1u64 << shift).max(1)));
        for v in values {
            let b = bucket_of(v);
            let (start, end) = (if b == 0 { 0 } else { bucket_end(b - 1) }, bucket_end(b));
            assert!(start <= v && v < end, "{v} in bucket {b} = [{start}, {end})");
            if v >= SUB {
                assert!(
                    (end - start) as f64 <= v as f64 / SUB as f64 + 1.0,
                    "{v}: [{start}, {end})"
                );
            }
        }
    }

    #[test]
    fn every_phase_has_a_slot_of_its_own() {
        let mut slots: Vec<usize> = Phase::all().map(Phase::index).collect();
        slots.sort();
        assert_eq!(slots, (0..PHASES).collect::<Vec<_>>());
    }

    #[test]
    fn bucket_ends_rise_without_gaps() {
        for b in 1..BUCKETS {
            assert!(bucket_end(b) > bucket_end(b - 1), "bucket {b}");
        }
    }

    #[test]
    fn quantiles_err_high_by_at_most_an_eighth() {
        let times = PhaseTimes::default();
        // 1..=1000 ms: the true p50 is 500 ms, p99 990 ms, max 1000 ms.
        for ms in 1..=1000 {
            times.record(Phase::Commit, Duration::from_millis(ms));
        }
        times.record(Phase::Trigger(TriggerKind::IdleWait), Duration::from_micros(3));
        let stats = times.snapshot();
        assert_eq!(
            stats.iter().map(|s| s.phase.as_str()).collect::<Vec<_>>(),
            ["commit", "idle_wait"]
        );
        let commit = &stats[0];
        assert_eq!(commit.count, 1000);
        for (got, truth) in [
            (commit.p50_ms, 500.0),
            (commit.p90_ms, 900.0),
            (commit.p99_ms, 990.0),
            (commit.max_ms, 1000.0),
        ] {
            assert!(got > truth && got <= truth * 1.125, "{got} for {truth}");
        }
        assert_eq!(stats[1].max_ms, 0.004);
        assert_eq!(commit.buckets.iter().map(|(_, n)| n).sum::<u64>(), 1000);
    }

    #[test]
    fn a_window_is_the_difference_of_two_snapshots() {
        let times = PhaseTimes::default();
        for _ in 0..100 {
            times.record(Phase::UserMove, Duration::from_millis(1));
        }
        let before = times.snapshot();
        for _ in 0..100 {
            times.record(Phase::UserMove, Duration::from_millis(50));
        }
        let after = times.snapshot();
        let window = after[0].since(&before[0]);
        assert_eq!(window.count, 100);
        assert!(window.p50_ms >= 50.0 && window.p50_ms < 57.0, "{}", window.p50_ms);
    }
}
