//! Situations read from real positions: the cues a moment gives, and the
//! words it is searched by, which must all be in the vocabulary embedded at start.

use super::board::{Motif, MoveTrait, Phase};
use super::*;
use crate::chess::Game;
use crate::triggers::{MoveFact, TriggerKind, UserInput};

fn ctx(moves: &[&str]) -> GameContext {
    crate::triggers::test_context(moves, &[])
}

fn tags(s: &Situation) -> Vec<String> {
    s.tags()
}

#[test]
fn the_players_opening_is_their_choice_and_a_cue() {
    let s = Situation::read(
        &Trigger::new(TriggerKind::OnUserMove),
        &ctx(&["e4", "e5", "Nf3", "Nc6", "Bc4"]),
    );
    let opening = s.opening.as_ref().expect("the Italian");
    assert_eq!(opening.family, "Italian Game");
    assert!(opening.chosen_by_user, "White chose the Italian");
    assert_eq!(tags(&s)[0], "opening:italian-game", "{:?}", s.cues);
    assert!(tags(&s).contains(&"as_white".to_string()));
}

#[test]
fn a_gambit_is_a_cue_and_what_the_player_made_of_it_says_why() {
    let gambit = |s: &Situation| s.cues.iter().find(|c| c.tag == "gambit").map(|c| c.reason.clone());
    let declined = ["e4", "e5", "f4", "Bc5"];
    let white = Situation::read(&Trigger::new(TriggerKind::OnUserMove), &ctx(&declined));
    assert_eq!(gambit(&white).as_deref(), Some("your gambit"), "{:?}", white.cues);
    let mut as_black = ctx(&declined);
    as_black.user_color = "black";
    let black = Situation::read(&Trigger::new(TriggerKind::OnUserMove), &as_black);
    assert_eq!(
        gambit(&black).as_deref(),
        Some("you declined the gambit"),
        "{:?}",
        black.cues
    );
    let italian = Situation::read(
        &Trigger::new(TriggerKind::OnUserMove),
        &ctx(&["e4", "e5", "Nf3", "Nc6", "Bc4"]),
    );
    assert_eq!(gambit(&italian), None, "no gambit, no cue");
}

#[test]
fn a_move_is_read_for_what_it_is_and_what_it_leaves() {
    // 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6?? 4. Qxf7#: before White's mate, Black's
    // last move left a mate in one.
    let s = Situation::read(
        &Trigger::new(TriggerKind::OnUserMove),
        &crate::triggers::test_context(&["e4", "e5", "Qh5", "Nc6", "Bc4"], &[]),
    );
    assert!(
        s.user_move.as_ref().is_some_and(|m| m.traits.is_empty()),
        "{:?}",
        s.user_move
    );
    let mut ctx = ctx(&["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]);
    ctx.planned_move = Some(fact(&ctx, "Qxf7#"));
    let s = Situation::read(&Trigger::new(TriggerKind::BeforeAgentMove), &ctx);
    let planned = s.planned.as_ref().expect("the planned move is read");
    assert!(
        planned.motifs.contains(&Motif::Mate { back_rank: false }),
        "{planned:?}"
    );
    assert!(planned.traits.contains(&MoveTrait::Check));
    assert_eq!(s.cues[0].tag, "mate");
    assert_eq!(s.board.as_ref().map(|b| b.phase), Some(Phase::Opening));
}

fn fact(ctx: &GameContext, san: &str) -> MoveFact {
    let mut game = Game::new(Some(&ctx.fen)).unwrap();
    let m = game.parse(san).unwrap();
    let played = game.play(m);
    MoveFact::new(ctx.move_count + 1, &played, shakmaty::Color::White)
}

#[test]
fn queries_recur_across_players_and_exact_moves() {
    // Two different knight moves by two different players: one text, so one embedding.
    let mut ann = ctx(&["e4", "c5", "Nf3"]);
    let mut bob = ctx(&["e4", "c5", "Nc3"]);
    ann.player_name = "Ann".into();
    bob.player_name = "Bob".into();
    let trigger = Trigger::new(TriggerKind::OnUserMove);
    let (a, b) = (Situation::read(&trigger, &ann), Situation::read(&trigger, &bob));
    assert_eq!(a.queries(), b.queries());
    assert!(a.queries().iter().all(|q| !q.contains("Ann")));
    let chat = Trigger::input(UserInput::Chat {
        text: "I love the Sicilian".into(),
    });
    let s = Situation::read(&chat, &ctx(&[]));
    assert_eq!(s.queries(), ["I love the Sicilian"]);
    assert!(tags(&s).contains(&"opening:sicilian-defense".to_string()));
}

#[test]
fn every_query_but_a_chat_is_in_the_vocabulary_embedded_at_start() {
    use rand::{Rng, SeedableRng};
    let vocabulary: std::collections::HashSet<String> = situation::vocabulary().into_iter().collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut checked = 0;
    for _ in 0..25 {
        let mut game = Game::new(None).unwrap();
        let mut sans = Vec::new();
        while game.end().is_none() && sans.len() < 120 {
            let legal = game.legal_moves();
            let m = game.parse(&legal[rng.gen_range(0..legal.len())].0).unwrap();
            sans.push(game.play(m).san);
            let refs: Vec<&str> = sans.iter().map(String::as_str).collect();
            let mut ctx = ctx(&refs);
            ctx.planned_move = ctx.last_move().cloned();
            for kind in [
                TriggerKind::BeforeMatch,
                TriggerKind::OnUserMove,
                TriggerKind::BeforeAgentMove,
                TriggerKind::IdleWait,
                TriggerKind::AfterMatch,
            ] {
                for query in Situation::read(&Trigger::new(kind), &ctx).queries() {
                    assert!(vocabulary.contains(&query), "not in the vocabulary: {query}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
    assert!(vocabulary.len() < 200, "{}", vocabulary.len());
}

#[test]
fn a_long_think_is_part_of_the_moment() {
    let mut long = ctx(&["e4", "e5", "Nf3"]);
    long.user_think_secs = Some(300.0);
    let s = Situation::read(&Trigger::new(TriggerKind::OnUserMove), &long);
    let think = s
        .cues
        .iter()
        .find(|c| c.tag == "thinking_time")
        .expect("a long think is a cue");
    assert_eq!(think.reason, "you thought for 5 minutes");
    assert!(think.weight >= 0.5, "strong enough to bring a memory alone");
    let mut quick = long.clone();
    quick.user_think_secs = Some(0.5);
    let s = Situation::read(&Trigger::new(TriggerKind::OnUserMove), &quick);
    let think = s
        .cues
        .iter()
        .find(|c| c.tag == "thinking_time")
        .expect("an instant move colours the moment");
    assert!(think.weight < 0.5, "too weak to bring a memory alone");
    let mut normal = long;
    normal.user_think_secs = Some(20.0);
    let s = Situation::read(&Trigger::new(TriggerKind::OnUserMove), &normal);
    assert!(s.cues.iter().all(|c| c.tag != "thinking_time"));
}

#[test]
fn a_returning_player_is_met_with_their_usual_openings() {
    use crate::triggers::UsualOpening;
    let mut back = ctx(&[]);
    back.history.played = 4;
    back.history.usual_openings = vec![
        UsualOpening {
            family: "Italian Game".into(),
            games: 3,
            of: 4,
        },
        UsualOpening {
            family: "London System".into(),
            games: 1,
            of: 4,
        },
    ];
    let s = Situation::read(&Trigger::new(TriggerKind::BeforeMatch), &back);
    let cue = |tag: &str| s.cues.iter().find(|c| c.tag == tag).cloned();
    let italian = cue("opening:italian-game").expect("the usual opening is a cue");
    assert_eq!(
        italian.reason,
        "your usual Italian Game as White (3 of your last 4 games)"
    );
    assert!(italian.weight >= 0.5, "strong enough to bring a memory alone");
    let london = cue("opening:london-system").expect("a second one, weaker");
    assert!(london.weight < italian.weight);
    let first = Situation::read(&Trigger::new(TriggerKind::BeforeMatch), &ctx(&[]));
    assert!(
        !first.tags().iter().any(|t| t.starts_with("opening:")),
        "{:?}",
        first.cues
    );
}

#[test]
fn a_memory_given_for_a_move_may_come_again_for_the_answer_and_not_later() {
    let mut state = RecallState::default();
    let id = MemoryId::new();
    let why = "the endgame".to_string();
    state.given.insert(
        id,
        Given {
            at: Utc::now(),
            why: why.clone(),
            kind: TriggerKind::OnUserMove,
            moves: 40,
        },
    );
    // The persona's answer to the move that brought it.
    assert!(!state.given_for(id, &why, TriggerKind::BeforeAgentMove, 40));
    assert!(!state.given_before(id, TriggerKind::BeforeAgentMove, 40));
    // The same reason at the same move, for anything else, or a move later.
    assert!(state.given_for(id, &why, TriggerKind::OnUserInput, 40));
    assert!(state.given_for(id, &why, TriggerKind::BeforeAgentMove, 42));
    assert!(state.given_before(id, TriggerKind::BeforeAgentMove, 42));
    // Another reason is always a new moment (the board model's own is not).
    assert!(!state.given_for(id, "your bishop", TriggerKind::OnUserMove, 40));
    assert!(state.given_before(id, TriggerKind::OnUserMove, 42));
}

#[test]
fn the_greetings_memory_is_no_answer_to_a_move_at_the_first_move() {
    // The persona has White: its first move comes at the greeting's count
    // of moves, but it answers no move of the player's.
    let mut state = RecallState::default();
    let id = MemoryId::new();
    let why = "how our last game went".to_string();
    let greeted = Given {
        at: Utc::now(),
        why: why.clone(),
        kind: TriggerKind::BeforeMatch,
        moves: 0,
    };
    state.given.insert(id, greeted);
    assert!(state.given_for(id, &why, TriggerKind::BeforeAgentMove, 0));
    assert!(state.given_before(id, TriggerKind::BeforeAgentMove, 0));
}

/// A memory naming the move just played recalls it as the player's; one
/// naming the persona's own planned move ("Nf6" in "As White, Rosa opened
/// with 1. e4 Nf6") does not call that move the player's.
#[test]
fn a_named_move_is_said_to_be_the_players_only_when_it_is() {
    let played = Situation::read(&Trigger::new(TriggerKind::OnUserMove), &ctx(&["e4"]));
    assert_eq!(played.why_named("e4"), "e4, a move I remember of you");
    let mut before = ctx(&["e4"]);
    before.planned_move = Some(fact(&before, "Nf6"));
    let planned = Situation::read(&Trigger::new(TriggerKind::BeforeAgentMove), &before);
    assert_eq!(planned.why_named("Nf6"), "Nf6, as in a game of ours I remember");
}
