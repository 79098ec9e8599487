//! A clock the match is played against on another site (Lichess): how long
//! the persona may think for a move. A brain that is slower than that (a
//! language model) is not waited for: the engine plays a quick move in its
//! place, so the persona never loses on time in a game it accepted.

use std::time::{Duration, Instant};

use super::MatchActor;
use crate::chess::engine::{SearchBudget, SearchRequest};
use crate::moves::{Driven, MoveDecision, decide_move};

/// Kept back from every budget for the network and the turn's own work.
const MARGIN: Duration = Duration::from_millis(500);
/// No budget is shorter: an engine's quick move fits in it.
const LEAST: Duration = Duration::from_millis(200);
/// The quick move's search.
const QUICK_SEARCH_MS: u64 = 100;

/// The persona's time left and increment, as the site last told them.
#[derive(Debug, Clone, Copy)]
pub struct SiteClock {
    pub left: Duration,
    pub increment: Duration,
    pub told_at: Instant,
}

impl SiteClock {
    /// A fortieth of what is left now and most of the increment, less the
    /// margin: a game of any length has time for forty such moves.
    pub fn budget(&self) -> Duration {
        let left = self.left.saturating_sub(self.told_at.elapsed());
        (left / 40 + self.increment * 3 / 4).saturating_sub(MARGIN).max(LEAST)
    }
}

impl MatchActor {
    pub(super) fn set_clock(&mut self, left: Duration, increment: Duration) {
        self.site_clock = Some(SiteClock {
            left,
            increment,
            told_at: Instant::now(),
        });
    }

    /// The brain's move, within the clock's budget when there is one.
    pub(super) async fn decide_within_clock(&mut self) -> Driven {
        let budget = match self.site_clock {
            Some(clock) if !self.brain.answers_at_once() => clock.budget(),
            _ => return decide_move(self.brain.as_mut(), self.table.game()).await,
        };
        let thinking = decide_move(self.brain.as_mut(), self.table.game());
        match tokio::time::timeout(budget, thinking).await {
            Ok(driven) => driven,
            Err(_) => {
                tracing::warn!(match_id = %self.id, ?budget, "the move brain is slower than the clock allows: the engine moves");
                self.quick_engine_move().await
            }
        }
    }

    /// The engine's move at the persona's strength, searched briefly.
    async fn quick_engine_move(&mut self) -> Driven {
        let game = self.table.game();
        let request = SearchRequest {
            fen: game.fen(),
            elo: self.persona.elo,
            style: self.persona.style,
            budget: SearchBudget::Millis(QUICK_SEARCH_MS),
        };
        let chosen = self.node.engines.play.choose_move(&request).await;
        match chosen.map(|c| (game.parse(&c.uci), c.uci)) {
            Ok((Ok(mv), uci)) => Driven::Move {
                mv,
                report: MoveDecision {
                    fallback: true,
                    ..MoveDecision::play(uci.clone())
                },
                uci,
            },
            // No engine move either: the brain's own, however long it takes.
            _ => decide_move(self.brain.as_mut(), self.table.game()).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_a_fortieth_and_most_of_the_increment() {
        let clock = |left, inc| SiteClock {
            left: Duration::from_secs(left),
            increment: Duration::from_secs(inc),
            told_at: Instant::now(),
        };
        let rapid = clock(600, 5).budget();
        assert!(
            rapid > Duration::from_millis(18_000) && rapid <= Duration::from_millis(18_500),
            "{rapid:?}"
        );
        let bullet = clock(60, 0).budget();
        assert!(
            bullet > Duration::from_millis(900) && bullet <= Duration::from_millis(1_000),
            "{bullet:?}"
        );
        assert_eq!(clock(1, 0).budget(), LEAST, "never below the least");
    }
}
