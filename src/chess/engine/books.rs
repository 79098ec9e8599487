//! How the persona's searches with a node budget and a time cap ended: at
//! their nodes (the strength the personas were calibrated at), or stopped
//! short by the clock on a busy node (a weaker move). Read by the admin
//! status and `bench live`, so a setting that buys latency with strength
//! shows what it costs.

use std::sync::atomic::{AtomicU64, Ordering};

/// A search counts as stopped short below this share of its nodes
/// (Stockfish checks its limits every few hundred nodes, and its last
/// report may come a little before the end).
const SHORT_BELOW: f64 = 0.9;

#[derive(Default)]
pub struct SearchBooks {
    searched: AtomicU64,
    short: AtomicU64,
    nodes: AtomicU64,
}

/// What the books say, for the admin status.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct SearchTally {
    /// Searches with a node budget and a time cap.
    pub searched: u64,
    /// Of those, stopped by the clock short of their nodes.
    pub stopped_short: u64,
    /// The nodes they reached, on average.
    pub mean_nodes: u64,
}

impl SearchBooks {
    /// A search asked for `budget` nodes and reached `reached`.
    pub fn record(&self, budget: u64, reached: u64) {
        self.searched.fetch_add(1, Ordering::Relaxed);
        self.nodes.fetch_add(reached, Ordering::Relaxed);
        if (reached as f64) < budget as f64 * SHORT_BELOW {
            self.short.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn tally(&self) -> SearchTally {
        let searched = self.searched.load(Ordering::Relaxed);
        SearchTally {
            searched,
            stopped_short: self.short.load(Ordering::Relaxed),
            mean_nodes: self.nodes.load(Ordering::Relaxed) / searched.max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_well_short_of_its_nodes_counts_as_stopped_by_the_clock() {
        let books = SearchBooks::default();
        books.record(15_000, 15_210);
        books.record(15_000, 14_000);
        books.record(15_000, 9_000);
        assert_eq!(
            books.tally(),
            SearchTally {
                searched: 3,
                stopped_short: 1,
                mean_nodes: 12_736
            }
        );
    }
}
