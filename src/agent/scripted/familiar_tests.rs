//! The words that change with familiarity, on the shipped persona files:
//! each stage greets in its own words, a long absence is noticed, friends
//! tease a blunder and strangers are spared, a loser is consoled.

use chrono::Duration;

use super::tests::{context, decide, decide_recalling, persona, said};
use super::*;
use crate::chess::odds::{MoveClass, MoveOdds};
use crate::familiarity::{Entry, Familiarity, Stage, Together, replay};
use crate::ids::{MatchId, PlayerId};
use crate::personas::StageEvent;
use crate::personas::{Persona, said_from as says};
use crate::triggers::{MatchHistory, Trigger};

/// The familiarity of `games` weekly, friendly games, the last `away` days ago.
fn after_games(persona: &Persona, games: i64, away: i64) -> Familiarity {
    let now = chrono::Utc::now();
    let played: Vec<Together> = (0..games)
        .map(|i| Together {
            match_id: MatchId::new(),
            played_at: now - Duration::days(away + 7 * (games - 1 - i)),
            finished: true,
            hard_fought: false,
            shared: u32::from(i % 3 == 0),
            courteous: 1,
            rude: 0,
        })
        .collect();
    let history: Vec<Entry> = replay(&played);
    Familiarity::of(&history, &persona.familiarity, now)
}

fn history_with(f: Familiarity) -> MatchHistory {
    let results = vec![Some(false); f.games as usize];
    MatchHistory {
        familiarity: f,
        ..MatchHistory::from_results(&results)
    }
}

/// Whether one of the messages was said from one of the templates.
fn one_of(templates: &[String], messages: &[String]) -> bool {
    templates.iter().any(|t| messages.iter().any(|m| says(t, m)))
}

async fn greeting(persona_id: &str, games: i64, away: i64) -> (Stage, String) {
    let p = persona(persona_id);
    let f = after_games(&p, games, away);
    let stage = f.stage;
    let (_, ctx) = context(&[], &history_with(f));
    let d = decide(Trigger::new(TriggerKind::BeforeMatch), &ctx, &p).await;
    (stage, said(&d).join(" "))
}

async fn end_words(p: &Persona, moves: &[&str], f: Familiarity) -> Vec<String> {
    let (_, ctx) = context(moves, &history_with(f));
    said(&decide(Trigger::new(TriggerKind::AfterMatch), &ctx, p).await)
}

fn words_of(p: &Persona, stage: Stage, event: StageEvent) -> Vec<String> {
    p.stage_lines(stage, event).iter().map(|l| l.text.clone()).collect()
}

#[tokio::test]
async fn each_stage_greets_in_its_own_words() {
    for id in ["margot", "pip", "viktor"] {
        let p = persona(id);
        let mut seen = Vec::new();
        for games in [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14] {
            let (stage, text) = greeting(id, games, 1).await;
            let templates = match stage {
                Stage::Stranger => p.lines.greeting.iter().map(|l| l.text.clone()).collect(),
                s => words_of(&p, s, StageEvent::Greeting),
            };
            assert!(
                templates.iter().any(|t| says(t, &text)),
                "{id} after {games} games ({stage:?}) said {text:?}"
            );
            seen.push(stage);
        }
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{id}: {seen:?}");
        seen.dedup();
        assert_eq!(seen, Stage::ALL, "{id}: every stage on the way");
    }
}

#[tokio::test]
async fn a_long_absence_is_noticed_in_words() {
    let (stage, text) = greeting("margot", 12, 23).await;
    assert!(stage >= Stage::Regular, "{stage:?}");
    assert!(text.contains("Three weeks"), "{text}");
    let (_, soon) = greeting("margot", 12, 2).await;
    assert!(!soon.contains("weeks"), "{soon}");
}

#[tokio::test]
async fn a_memory_is_greeted_by_a_line_that_says_it() {
    let p = persona("viktor");
    let (_, ctx) = context(&[], &history_with(after_games(&p, 14, 1)));
    let mut memory = crate::memory::Memory::new(
        "viktor",
        MemoryType::PlayerObservation,
        "Ann teaches piano.",
        crate::memory::CreatedBy::MainAgent,
    );
    memory.player_id = Some(PlayerId::new());
    let recalled = Recalled {
        memory,
        similarity: 0.8,
        score: 0.8,
        why: String::new(),
        relevance: None,
    };
    let d = decide_recalling(
        Trigger::new(TriggerKind::BeforeMatch),
        &ctx,
        &p,
        std::slice::from_ref(&recalled),
    )
    .await;
    let text = said(&d).join(" ");
    assert!(text.contains("“Ann teaches piano.”"), "{text}");
    assert!(
        words_of(&p, Stage::OldFriend, StageEvent::Greeting)
            .iter()
            .any(|t| says(t, &text))
    );
}

async fn after_a_blunder(stage_games: i64) -> String {
    let p = persona("pip");
    let (_, mut ctx) = context(&["e4", "e5", "Qh5"], &history_with(after_games(&p, stage_games, 1)));
    let last = ctx.last_moves.last_mut().unwrap();
    last.odds = Some(MoveOdds {
        white: 30.0,
        delta: -25.0,
        class: MoveClass::Blunder,
        eval: None,
        deep: false,
    });
    said(&decide(Trigger::new(TriggerKind::OnUserMove), &ctx, &p).await).join(" ")
}

#[tokio::test]
async fn friends_tease_a_blunder_and_strangers_are_spared() {
    let p = persona("pip");
    let teases = |stage| words_of(&p, stage, StageEvent::Tease);
    let friend = after_a_blunder(14).await;
    assert!(teases(Stage::OldFriend).iter().any(|t| says(t, &friend)), "{friend}");
    let stranger = after_a_blunder(0).await;
    let all: Vec<String> = Stage::ALL.into_iter().flat_map(teases).collect();
    assert!(!all.iter().any(|t| says(t, &stranger)), "{stranger}");
}

#[tokio::test]
async fn a_loser_is_consoled_and_a_winner_bid_farewell_by_stage() {
    let p = persona("margot");
    let f = after_games(&p, 6, 0);
    let stage = f.stage;
    // 1.f3 e5 2.g4 Qh4#: the player (White) lost.
    let lost = end_words(&p, &["f3", "e5", "g4", "Qh4#"], f.clone()).await;
    assert!(one_of(&words_of(&p, stage, StageEvent::Console), &lost), "{lost:?}");
    // 1.e4 f6 2.d4 g5 3.Qh5#: the player won.
    let won = end_words(&p, &["e4", "f6", "d4", "g5", "Qh5#"], f).await;
    assert!(one_of(&words_of(&p, stage, StageEvent::Farewell), &won), "{won:?}");
    assert!(!one_of(&words_of(&p, stage, StageEvent::Console), &won), "{won:?}");
}
