//! The persona's words for the player's old mistakes as puzzles: the offer
//! at the greeting ("Remember our game on Tuesday? You played “Qd4” there.
//! Find better."), and right or wrong after an answer, with the line. Every move
//! is quoted: it is from another game, not this board.

use crate::agent::BrainInput;
use crate::triggers::{TriggerKind, UserInput};

/// The true words of the offer or the verdict (empty for anything else).
pub(crate) fn words(input: &BrainInput<'_>) -> String {
    let name = &input.ctx.player_name;
    match &input.trigger.input {
        Some(UserInput::PuzzleOffer { played_san, when }) => {
            // Offered while they think over this game's move, it says so.
            let aside = match input.trigger.kind {
                TriggerKind::IdleWait => "While you think, one from before. ",
                _ => "",
            };
            format!(
                "{aside}Remember our game {when}, {name}? You played “{played_san}” there. Find better: the position is on your puzzle board."
            )
        }
        Some(UserInput::PuzzleAnswer {
            correct: true,
            answered_san,
            when,
            retired,
            ..
        }) => {
            let done = match retired {
                true => " Twice now: that one is yours for good.",
                false => " I'll ask again another day, to be sure.",
            };
            format!("“{answered_san}”. That's it: the move you missed {when}.{done}")
        }
        Some(UserInput::PuzzleAnswer {
            answered_san,
            solution_san,
            ..
        }) => format!("“{answered_san}”? No: “{solution_san}” was it. It will come back, {name}."),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::scripted::tests::{context, persona};
    use crate::triggers::{MatchHistory, Trigger};

    #[tokio::test]
    async fn the_offer_and_the_verdicts_quote_their_moves() {
        let margot = persona("margot");
        let (_, ctx) = context(&[], &MatchHistory::default());
        let mut trigger = Trigger::new(TriggerKind::BeforeMatch);
        trigger.input = Some(UserInput::PuzzleOffer {
            played_san: "Qd4".into(),
            when: "on 24 November".into(),
        });
        let said =
            crate::agent::scripted::tests::said(&crate::agent::scripted::tests::decide(trigger, &ctx, &margot).await);
        assert!(
            said.iter()
                .any(|l| l.contains("Remember our game on 24 November") && l.contains("“Qd4”")),
            "{said:?}"
        );
        let answer = |correct: bool, retired: bool| {
            let mut t = Trigger::new(TriggerKind::OnUserInput);
            t.input = Some(UserInput::PuzzleAnswer {
                correct,
                answered_san: if correct { "Qxd8#" } else { "Qd4" }.into(),
                solution_san: "Qxd8#".into(),
                when: "on 24 November".into(),
                retired,
            });
            t
        };
        let right = crate::agent::scripted::tests::said(
            &crate::agent::scripted::tests::decide(answer(true, false), &ctx, &margot).await,
        );
        assert!(
            right.iter().any(|l| l.contains("That's it") && l.contains("again")),
            "{right:?}"
        );
        let retired = crate::agent::scripted::tests::said(
            &crate::agent::scripted::tests::decide(answer(true, true), &ctx, &margot).await,
        );
        assert!(retired.iter().any(|l| l.contains("for good")), "{retired:?}");
        let wrong = crate::agent::scripted::tests::said(
            &crate::agent::scripted::tests::decide(answer(false, false), &ctx, &margot).await,
        );
        assert!(wrong.iter().any(|l| l.contains("“Qxd8#” was it")), "{wrong:?}");
    }
}
