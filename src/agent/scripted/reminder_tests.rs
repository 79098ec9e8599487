//! The player's memories as the scripted brain says them: a past game told
//! without claiming this board, and a memory quoted once a game.

use super::tests::{context, decide_recalling, persona, said};
use super::*;
use crate::triggers::{MatchHistory, Trigger};

/// A memory brought up by the board or a chat line tells of another game: its
/// "checkmate" is no claim about this board, and the claim checker keeps it.
#[tokio::test]
async fn a_recalled_game_is_told_without_claiming_this_board() {
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4", "e5", "Nf3"], &MatchHistory::default());
    let past = "On 2 May, Ann played White and lost to me by checkmate after 24 moves.";
    let recalled = viktors(MemoryType::GameContext, past, "we played this opening before", None);
    let chat = Trigger::input(UserInput::Chat {
        text: "nice game so far".into(),
    });
    for trigger in [Trigger::new(TriggerKind::OnUserMove), chat] {
        let d = decide_recalling(trigger, &ctx, &viktor, std::slice::from_ref(&recalled)).await;
        let said = said(&d);
        let reminder = said
            .iter()
            .find(|t| t.contains("lost to me by checkmate"))
            .expect("reminded");
        assert_eq!(
            crate::actions::claims::check(reminder, &ctx),
            crate::actions::claims::Checked::True,
            "{reminder}"
        );
    }
}

/// A memory the persona quoted once this match is not quoted again at the
/// next pause, chat line or the handshake: once a game, like a club friend.
#[tokio::test]
async fn a_memory_is_quoted_once_a_match() {
    let viktor = persona("viktor");
    let (_, mut ctx) = context(&["e4", "e5", "Nf3"], &MatchHistory::default());
    let habit = "Ann gets short-tempered when she falls behind on the clock.";
    let recalled = viktors(MemoryType::Pattern, habit, "you are taking your time", None);
    let chat = || {
        Trigger::input(UserInput::Chat {
            text: "ugh my clock is running away from me".into(),
        })
    };
    let quotes = |d: &Decision| said(d).iter().filter(|t| t.contains(habit)).count();
    let first = decide_recalling(Trigger::idle(0), &ctx, &viktor, std::slice::from_ref(&recalled)).await;
    assert_eq!(quotes(&first), 1, "{:?}", said(&first));
    let fresh = decide_recalling(chat(), &ctx, &viktor, std::slice::from_ref(&recalled)).await;
    assert_eq!(quotes(&fresh), 1, "not yet quoted: {:?}", said(&fresh));
    ctx.said = std::sync::Arc::new(said(&first));
    for trigger in [Trigger::idle(1), chat(), Trigger::new(TriggerKind::OnUserMove)] {
        let again = decide_recalling(trigger, &ctx, &viktor, std::slice::from_ref(&recalled)).await;
        assert_eq!(quotes(&again), 0, "{:?}", said(&again));
    }
}

/// A memory recall handed over on a weak chance that the line was about it
/// is the brain's to weigh, not said aloud: "how is the tea today?" did not
/// want the player's worst shift quoted back. A likely one is said.
#[tokio::test]
async fn a_chat_line_is_answered_with_a_memory_only_when_it_is_likely_about_it() {
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4", "e5", "Nf3"], &MatchHistory::default());
    let habit = "Ann gets short-tempered when she falls behind on the clock.";
    let recalled = |p: f32| viktors(MemoryType::Pattern, habit, "what you said", Some(p));
    let chat = || {
        Trigger::input(UserInput::Chat {
            text: "ugh my clock is running away from me".into(),
        })
    };
    let quotes = |d: &Decision| said(d).iter().filter(|t| t.contains(habit)).count();
    let weak = decide_recalling(chat(), &ctx, &viktor, &[recalled(0.21)]).await;
    assert_eq!(quotes(&weak), 0, "{:?}", said(&weak));
    let likely = decide_recalling(chat(), &ctx, &viktor, &[recalled(0.8)]).await;
    assert_eq!(quotes(&likely), 1, "{:?}", said(&likely));
}

/// A memory of Viktor's recalled for `why`, with the relevance model's
/// probability if it judged it.
fn viktors(kind: MemoryType, content: &str, why: &str, relevance: Option<f32>) -> Recalled {
    Recalled {
        memory: crate::memory::Memory::new("viktor", kind, content, crate::memory::CreatedBy::MainAgent),
        similarity: 0.9,
        score: 0.9,
        why: why.into(),
        relevance,
    }
}
