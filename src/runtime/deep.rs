//! The deeper evaluation's books: how many moves asked for it, how many it
//! checked, how many it shed. It searches on the CPU the live searches
//! leave (its Stockfish at the lowest priority), so under load it falls
//! behind; past `MAX_WAITING` moves waiting, a new move is not evaluated
//! deeply at all (shed) rather than checked minutes after anyone looks,
//! and the count says how much of the odds rest on the quick evaluation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// Moves waiting for the deeper evaluation at most: at 200,000 nodes, about
/// three seconds of a free core.
pub const MAX_WAITING: u64 = 16;

#[derive(Default)]
pub struct DeepEvaluations {
    asked: AtomicU64,
    checked: AtomicU64,
    shed: AtomicU64,
    waiting: AtomicU64,
}

/// The books as read by `GET /api/admin/status` and `kibitz bench live`.
#[derive(Debug, Clone, Copy, Serialize, utoipa::ToSchema)]
pub struct DeepStats {
    /// Moves that asked for the deeper evaluation.
    pub asked: u64,
    /// Moves it checked (their odds revised or confirmed).
    pub checked: u64,
    /// Moves it never searched: too many were waiting.
    pub shed: u64,
    /// Moves waiting now.
    pub waiting: u64,
}

/// A move's place in the deeper evaluation's queue; gives it back when dropped.
pub struct Waiting(Arc<DeepEvaluations>);

impl Waiting {
    /// The move was searched and its odds checked.
    pub fn checked(self) {
        self.0.checked.fetch_add(1, Ordering::Relaxed);
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

impl DeepEvaluations {
    /// A place in the queue for one move, or None (counted as shed) when
    /// `MAX_WAITING` already wait.
    pub fn wait(self: &Arc<Self>) -> Option<Waiting> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        let taken = self.waiting.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
            (n < MAX_WAITING).then_some(n + 1)
        });
        match taken {
            Ok(_) => Some(Waiting(self.clone())),
            Err(_) => {
                self.shed.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// A move whose position the analyst had searched already: checked
    /// at once, waiting for nothing.
    pub fn known(&self) {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.checked.fetch_add(1, Ordering::Relaxed);
    }

    pub fn stats(&self) -> DeepStats {
        DeepStats {
            asked: self.asked.load(Ordering::Relaxed),
            checked: self.checked.load(Ordering::Relaxed),
            shed: self.shed.load(Ordering::Relaxed),
            waiting: self.waiting.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_moves_are_shed_and_places_come_back() {
        let deep = Arc::new(DeepEvaluations::default());
        let places: Vec<Waiting> = (0..MAX_WAITING).filter_map(|_| deep.wait()).collect();
        assert_eq!(places.len() as u64, MAX_WAITING);
        assert!(deep.wait().is_none(), "one too many is shed");
        let mut places = places.into_iter();
        places.next().expect("a place").checked();
        drop(places.next());
        let stats = deep.stats();
        assert_eq!(
            (stats.asked, stats.checked, stats.shed, stats.waiting),
            (MAX_WAITING + 1, 1, 1, MAX_WAITING - 2)
        );
        assert!(deep.wait().is_some(), "a place freed is taken again");
        deep.known();
        let stats = deep.stats();
        assert_eq!(
            (stats.asked, stats.checked),
            (MAX_WAITING + 3, 2),
            "a known position takes no place"
        );
    }
}
