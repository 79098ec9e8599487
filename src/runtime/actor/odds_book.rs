//! The odds of each move played, by ply (1: White's first move): none where
//! the engine had no time. Only this file changes them; `odds.rs` works them
//! out and revises them.

use crate::chess::odds::MoveOdds;

#[derive(Debug, Default)]
pub(super) struct OddsBook(Vec<Option<MoveOdds>>);

impl OddsBook {
    pub(super) fn new(per_ply: Vec<Option<MoveOdds>>) -> OddsBook {
        OddsBook(per_ply)
    }

    /// The odds after the move at `ply`, if known.
    pub(super) fn after(&self, ply: usize) -> Option<MoveOdds> {
        ply.checked_sub(1).and_then(|i| self.0.get(i).copied().flatten())
    }

    /// The odds of the move just played at `ply`: any after it are gone.
    pub(super) fn record(&mut self, ply: usize, odds: Option<MoveOdds>) {
        self.0.resize(ply.saturating_sub(1), None);
        self.0.push(odds);
    }

    /// A deeper verdict on the move at `ply`; false if it says the same.
    pub(super) fn revise(&mut self, ply: usize, odds: MoveOdds) -> bool {
        if ply == 0 || self.after(ply) == Some(odds) {
            return false;
        }
        self.0.resize(self.0.len().max(ply), None);
        self.0[ply - 1] = Some(odds);
        true
    }

    /// Only the first `plies` moves' odds stay (a takeback).
    pub(super) fn keep(&mut self, plies: usize) {
        self.0.truncate(plies);
    }

    pub(super) fn all(&self) -> &[Option<MoveOdds>] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::odds::MoveClass;

    fn odds(white: f64) -> MoveOdds {
        MoveOdds {
            white,
            delta: 0.0,
            class: MoveClass::Good,
            eval: None,
            deep: false,
        }
    }

    #[test]
    fn plies_count_from_one_and_a_new_move_drops_what_came_after() {
        let mut book = OddsBook::default();
        book.record(1, Some(odds(52.0)));
        book.record(2, None);
        book.record(3, Some(odds(55.0)));
        assert_eq!(
            (book.after(0), book.after(1), book.after(2)),
            (None, Some(odds(52.0)), None)
        );
        book.record(2, Some(odds(49.0)));
        assert_eq!(book.all().len(), 2, "ply 3 was after the move replayed at 2");
        assert!(book.revise(2, odds(47.0)));
        assert!(!book.revise(2, odds(47.0)), "the same verdict changes nothing");
        book.keep(1);
        assert_eq!(book.all(), &[Some(odds(52.0))]);
    }
}
