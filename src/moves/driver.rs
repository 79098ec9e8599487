//! The bot driver for one decision: ask the brain, check the move,
//! show a rejected move back with its reason, and after `MAX_ATTEMPTS`
//! rejections (or brain failures) resign rather than stall the game.

use shakmaty::Move;

use super::{MoveAction, MoveBrain, MoveDecision, MoveInput, Rejection};
use crate::chess::Game;
use crate::llm::Usage;

pub const MAX_ATTEMPTS: usize = 5;

#[derive(Debug, Clone)]
pub enum Driven {
    Move {
        mv: Move,
        uci: String,
        report: MoveDecision,
    },
    /// The brain resigned, or ran out of attempts (`reason` says which).
    Resign { reason: String, usage: Usage },
}

pub async fn decide_move(brain: &mut dyn MoveBrain, game: &Game) -> Driven {
    let mut rejections: Vec<Rejection> = Vec::new();
    let mut usage = Usage::default();
    let mut illegal = 0;
    for _ in 0..MAX_ATTEMPTS {
        let input = MoveInput {
            game,
            rejections: &rejections,
        };
        let decision = match brain.choose(input).await {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(brain = %brain.name(), "move brain failed: {e}");
                rejections.push(Rejection {
                    attempted: String::new(),
                    reason: format!("the brain failed: {e}"),
                });
                continue;
            }
        };
        usage += decision.usage;
        illegal += decision.illegal;
        let attempted = match &decision.action {
            MoveAction::Resign => {
                return Driven::Resign {
                    reason: "the brain resigned".into(),
                    usage,
                };
            }
            MoveAction::Move(m) => m.clone(),
        };
        match game.parse(&attempted) {
            Ok(mv) => {
                let uci = crate::chess::notation::uci(mv);
                let report = MoveDecision {
                    usage,
                    illegal,
                    ..decision
                };
                return Driven::Move { mv, uci, report };
            }
            Err(e) => {
                tracing::info!(brain = %brain.name(), "rejected move {attempted:?}: {e}");
                illegal += 1;
                rejections.push(Rejection {
                    attempted,
                    reason: e.to_string(),
                });
            }
        }
    }
    tracing::warn!(brain = %brain.name(), "no acceptable move in {MAX_ATTEMPTS} attempts; resigning");
    Driven::Resign {
        reason: format!("no legal move in {MAX_ATTEMPTS} attempts"),
        usage,
    }
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;

    use super::*;
    use crate::moves::MoveError;

    /// Proposes the scripted moves in order, and records what it was shown.
    struct Scripted {
        moves: Vec<&'static str>,
        shown: Vec<usize>,
    }

    #[async_trait]
    impl MoveBrain for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        async fn choose(&mut self, input: MoveInput<'_>) -> Result<MoveDecision, MoveError> {
            self.shown.push(input.rejections.len());
            let next = self.moves.remove(0);
            Ok(MoveDecision::play(next))
        }
    }

    #[tokio::test]
    async fn a_rejected_move_is_shown_back_and_the_next_legal_one_played() {
        let game = Game::new(None).unwrap();
        let mut brain = Scripted {
            moves: vec!["e2e5", "Kf9", "Nf3"],
            shown: Vec::new(),
        };
        let Driven::Move { uci, report, .. } = decide_move(&mut brain, &game).await else {
            panic!("resigned")
        };
        assert_eq!(uci, "g1f3");
        assert_eq!(report.illegal, 2);
        assert_eq!(brain.shown, vec![0, 1, 2]);
    }

    #[tokio::test]
    async fn five_bad_moves_and_the_brain_resigns() {
        let game = Game::new(None).unwrap();
        let mut brain = Scripted {
            moves: vec!["e2e5"; 6],
            shown: Vec::new(),
        };
        assert!(matches!(decide_move(&mut brain, &game).await, Driven::Resign { .. }));
        assert_eq!(brain.shown.len(), MAX_ATTEMPTS);
    }
}
