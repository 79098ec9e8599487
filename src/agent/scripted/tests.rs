//! The scripted brain's decisions on real persona files and games.

use super::*;
use crate::chess::{Game, GameEnd};
use crate::ids::{MatchId, PlayerId};
use crate::personas::{Persona, load_dir, said_from as says};
use crate::triggers::{ContextParts, MatchHistory, MoveFact, Trigger};

pub(super) fn persona(id: &str) -> Persona {
    load_dir(&crate::personas::shipped_dir())
        .unwrap()
        .into_iter()
        .find(|p| p.id == id)
        .unwrap()
}

pub(super) fn context(moves: &[&str], history: &MatchHistory) -> (Game, GameContext) {
    let mut game = Game::new(None).unwrap();
    for m in moves {
        let mv = game.parse(m).unwrap();
        game.play(mv);
    }
    let parts = ContextParts {
        match_id: MatchId(uuid::Uuid::from_u128(7)),
        player_id: PlayerId::new(),
        player_name: "Ann",
        persona_id: &"viktor".into(),
        persona_elo: 1800,
        user_color: shakmaty::Color::White,
        started_at: chrono::Utc::now(),
        history,
        odds: &[],
    };
    let ctx = GameContext::build(parts, &game);
    (game, ctx)
}

pub(super) async fn decide(trigger: Trigger, ctx: &GameContext, persona: &Persona) -> Decision {
    decide_recalling(trigger, ctx, persona, &[]).await
}

pub(super) async fn decide_recalling(
    trigger: Trigger,
    ctx: &GameContext,
    persona: &Persona,
    memories: &[Recalled],
) -> Decision {
    decide_in_mood(trigger, ctx, persona, memories, persona.default_emotion()).await
}

pub(super) async fn decide_in_mood(
    trigger: Trigger,
    ctx: &GameContext,
    persona: &Persona,
    memories: &[Recalled],
    emotion: &str,
) -> Decision {
    let input = BrainInput {
        trigger: &trigger,
        ctx,
        persona,
        memories,
        emotion,
        llm: None,
        sampling: crate::config::LlmConfig::default().main,
        draft: None,
    };
    ScriptedBrain.decide(input).await.unwrap()
}

pub(super) fn said(d: &Decision) -> Vec<String> {
    d.actions
        .iter()
        .filter_map(|a| match a {
            Action::SendMessage { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_user_capture_is_named_with_the_piece_and_changes_the_mood() {
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4", "d5", "exd5"], &MatchHistory::default());
    let d = decide(Trigger::new(TriggerKind::OnUserMove), &ctx, &viktor).await;
    assert!(said(&d)[0].contains("pawn"), "{d:?}");
    assert!(d.actions.contains(&Action::feel("irritated")));
    // Deterministic: the same moment gives the same words.
    assert_eq!(decide(Trigger::new(TriggerKind::OnUserMove), &ctx, &viktor).await, d);
}

#[tokio::test]
async fn the_planned_move_is_what_the_persona_talks_about() {
    let viktor = persona("viktor");
    let (mut game, mut ctx) = context(&["e4", "d5", "Nc3"], &MatchHistory::default());
    let m = game.parse("dxe4").unwrap();
    ctx.planned_move = Some(MoveFact::new(4, &game.play(m), shakmaty::Color::White));
    let d = decide(Trigger::new(TriggerKind::BeforeAgentMove), &ctx, &viktor).await;
    let text = said(&d).join(" ");
    assert!(text.contains("dxe4") || text.contains("pawn"), "{text}");
    assert!(d.actions.contains(&Action::feel("fired_up")));
}

#[tokio::test]
async fn the_second_game_of_a_day_is_recorded_as_such_and_passes_the_checks() {
    let viktor = persona("viktor");
    let first = MatchHistory::from_results(&[Some(false)]);
    let second = MatchHistory {
        played_today: 2,
        ..MatchHistory::from_results(&[Some(false), Some(false)])
    };
    let mut records = Vec::new();
    for history in [first, second] {
        let (_, ctx) = context(&["f3", "e5", "g4", "Qh4#"], &history);
        let d = decide(Trigger::new(TriggerKind::AfterMatch), &ctx, &viktor).await;
        let record = d.actions.iter().find_map(|a| match a {
            Action::SaveMemory {
                memory_type: MemoryType::GameContext,
                content,
                ..
            } => Some(content.clone()),
            _ => None,
        });
        let record = record.expect("the game is recorded");
        let refused = crate::actions::memory_check::refusal(&record, MemoryType::GameContext, &ctx, "Viktor");
        assert_eq!(refused, None, "{record}");
        records.push(record);
    }
    assert!(!records[0].contains("game that day"), "{}", records[0]);
    assert!(records[1].contains(", in our second game that day, "), "{}", records[1]);
}

#[tokio::test]
async fn after_the_match_it_remembers_true_facts() {
    let viktor = persona("viktor");
    let history = MatchHistory::from_results(&[Some(false), Some(false)]);
    let (game, ctx) = context(&["f3", "e5", "g4", "Qh4#"], &history);
    assert_eq!(
        game.end(),
        Some(GameEnd::Checkmate {
            winner: shakmaty::Color::Black
        })
    );
    let d = decide(Trigger::new(TriggerKind::AfterMatch), &ctx, &viktor).await;
    let memories: Vec<(MemoryType, String)> = d
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::SaveMemory {
                memory_type, content, ..
            } => Some((*memory_type, content.clone())),
            _ => None,
        })
        .collect();
    assert!(
        memories
            .iter()
            .any(|(t, c)| *t == MemoryType::GameContext && c.contains("lost to me by checkmate"))
    );
    assert!(
        memories
            .iter()
            .any(|(t, c)| *t == MemoryType::PlayerBehavior && c.contains("1. f3 e5 2. g4 Qh4#"))
    );
    assert!(
        memories
            .iter()
            .any(|(t, c)| *t == MemoryType::Streak && c.contains("lost 2 matches in a row"))
    );
    assert!(said(&d)[0].contains("0-1 by checkmate"), "{:?}", said(&d));
    assert_eq!(d.actions.last(), Some(&Action::Stop));
}

#[test]
fn the_opening_is_credited_to_the_side_the_player_had() {
    let history = MatchHistory::default();
    let (_, mut ctx) = context(&["e4", "e5", "Nf3", "Nc6", "Bc4"], &history);
    let white = super::repertoire("Ann", &ctx);
    assert!(
        white.starts_with("As White, Ann opened with 1. e4 e5 2. Nf3 Nc6 3. Bc4"),
        "{white}"
    );
    ctx.user_color = "black";
    let black = super::repertoire("Ann", &ctx);
    assert!(
        black.starts_with("As Black, Ann answered 1. e4 with 1... e5; the game went on 2. Nf3 Nc6 3. Bc4"),
        "{black}"
    );
    // The opening book still follows the line told that way, and the
    // memory check keeps it (it speaks of the player, not of the persona).
    assert_eq!(crate::chess::openings::line_keys(&black).len(), 5, "{black}");
    let kept = crate::actions::memory_check::refusal(&black, MemoryType::PlayerBehavior, &ctx, "Viktor");
    assert_eq!(kept, None, "{black}");
    let (_, mut short) = context(&["d3", "e5"], &history);
    short.user_color = "black";
    assert!(super::repertoire("Ann", &short).starts_with("As Black, Ann answered 1. d3 with 1... e5"));
}

#[tokio::test]
async fn facts_are_kept_in_the_third_person_and_pleasantries_are_not() {
    let pip = persona("pip");
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    let notes = |d: &Decision| -> Vec<String> {
        d.actions
            .iter()
            .filter_map(|a| match a {
                Action::SaveMemory { content, .. } => Some(content.clone()),
                _ => None,
            })
            .collect()
    };
    let d = decide(chat("I teach maths at the village school"), &ctx, &pip).await;
    assert_eq!(notes(&d), ["Ann teaches maths at the village school."]);
    assert!(
        said(&d)[0].contains("you teach maths at the village school"),
        "echoed: {d:?}"
    );
    // Every fact, however soon after another: the filter decides, not a clock.
    let d = decide(chat("My daughter plays in the county league"), &ctx, &pip).await;
    assert_eq!(notes(&d), ["Ann's daughter plays in the county league."]);
    for pleasantry in [
        "Hello! Do you remember me?",
        "thanks!",
        "nice move",
        "I'm so tired tonight",
    ] {
        let d = decide(chat(pleasantry), &ctx, &pip).await;
        assert!(notes(&d).is_empty(), "{pleasantry}: {d:?}");
        assert!(!said(&d).is_empty(), "{pleasantry} is answered");
    }
}

#[tokio::test]
async fn idle_nudges_escalate_through_the_lines() {
    let pip = persona("pip");
    let (_, ctx) = context(&[], &MatchHistory::default());
    let first = said(&decide(Trigger::idle(0), &ctx, &pip).await);
    let second = said(&decide(Trigger::idle(1), &ctx, &pip).await);
    assert_ne!(first, second);
    assert!(first[0].contains("Ann"), "{first:?}");
}

#[test]
fn a_line_is_known_by_its_template_whatever_filled_it() {
    assert!(says("Ha! {answer}", "Ha! We've played one game."));
    assert!(says("{echo}? Noted, {player}.", "You teach maths? Noted, Ann."));
    assert!(!says("{echo}? Noted, {player}.", "You teach maths. Noted!"));
    assert!(says("Draw? Never!", "Draw? Never!"));
    assert!(!says("Draw? Never!", "Draw? Never!!"));
}

/// A card's chat lines may be said at any move: those not about the board
/// claim nothing the board must show ("tired players make mistakes" was
/// cut to its first words by the claim checker), so each passes it whole.
#[test]
fn the_shipped_chat_lines_claim_nothing_about_the_board() {
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    let about_the_board = ["asks_position", "draw_request"];
    let mut cut = Vec::new();
    for id in ["margot", "pip", "viktor"] {
        for (key, lines) in &persona(id).chat {
            for line in lines.iter().filter(|_| !about_the_board.contains(&key.as_str())) {
                let text = line
                    .text
                    .replace("{player}", "Ann")
                    .replace("{answer}", "Ann told me so.")
                    .replace("{echo}", "Ann teaches piano");
                if crate::actions::claims::check(&text, &ctx) != crate::actions::claims::Checked::True {
                    cut.push(format!("{id} chat.{key}: {text}"));
                }
            }
        }
    }
    assert!(cut.is_empty(), "{cut:#?}");
}

/// "Why Nf6?" is answered from the board: what the move attacks and what it
/// develops, and the answer passes the claim checker whole.
#[tokio::test]
async fn why_a_move_is_told_from_the_board() {
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4", "Nf6"], &MatchHistory::default());
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    for (asked, expected) in [
        (
            "why Nf6?",
            "Nf6? Because it threatens to win your pawn on e4 and develops my knight.",
        ),
        (
            "what are you threatening?",
            "With Nf6 it threatens to win your pawn on e4.",
        ),
    ] {
        let d = decide(chat(asked), &ctx, &viktor).await;
        let text = said(&d).join(" ");
        assert!(text.contains(expected), "{asked}: {text}");
        assert_eq!(
            crate::actions::claims::check(&text, &ctx),
            crate::actions::claims::Checked::True,
            "{text}"
        );
    }
    // A quiet move with no reason a rule can name.
    let (_, ctx) = context(&["e4", "a6"], &MatchHistory::default());
    let text = said(&decide(chat("why a6?"), &ctx, &viktor).await).join(" ");
    assert!(text.contains("a6? Because it improves my position."), "{text}");
    // Two pawns attacked alike are told together.
    let (_, ctx) = context(&["e4", "Nf6", "Nf3", "Nxe4"], &MatchHistory::default());
    let text = said(&decide(chat("what's the threat?"), &ctx, &viktor).await).join(" ");
    assert!(text.contains("With Nxe4 it attacks your pawns on d2 and f2."), "{text}");
    assert_eq!(
        crate::actions::claims::check(&text, &ctx),
        crate::actions::claims::Checked::True,
        "{text}"
    );
    // The knight takes on f2 and hits the queen; not a fork: the king takes it.
    let (_, ctx) = context(&["e4", "Nf6", "Nc3", "Ng4", "Nf3", "Nxf2"], &MatchHistory::default());
    let text = said(&decide(chat("why did you play that?"), &ctx, &viktor).await).join(" ");
    assert!(
        text.contains("Nxf2? Because it takes your pawn and threatens to win your queen on d1 and rook on h1."),
        "{text}"
    );
    assert_eq!(
        crate::actions::claims::check(&text, &ctx),
        crate::actions::claims::Checked::True,
        "{text}"
    );
}

/// Asked about itself, the persona answers from its card: its strength and
/// style are facts of its engine settings, not made up.
#[tokio::test]
async fn the_persona_tells_its_rating_and_style_from_its_card() {
    let pip = persona("pip");
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    let rating = said(&decide(chat("what's your rating?"), &ctx, &pip).await).join(" ");
    assert!(rating.contains(&format!("about {}", pip.elo)), "{rating}");
    let style = said(&decide(chat("what kind of player are you?"), &ctx, &pip).await).join(" ");
    assert!(style.contains("My style is tricky: I set traps"), "{style}");
}

/// Asked about itself again, it tells what it has not told yet this
/// match: not the same line of its biography twice.
#[tokio::test]
async fn asked_about_itself_twice_it_does_not_repeat_itself() {
    let viktor = persona("viktor");
    let (_, mut ctx) = context(&["e4"], &MatchHistory::default());
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    let first = said(&decide(chat("who is your favourite player?"), &ctx, &viktor).await).join(" ");
    assert!(first.contains("coffeehouse hustler"), "{first}");
    ctx.said = std::sync::Arc::new(vec![first.clone()]);
    let again = said(&decide(chat("who is your favourite player?"), &ctx, &viktor).await).join(" ");
    assert!(!again.contains("coffeehouse hustler"), "{again}");
    assert!(viktor.lore.iter().any(|l| again.contains(&l.text)), "{again}");
}

/// "Who taught me chess?" is answered by what the player told, "do you
/// remember me?" by the two of them, "what's my job?" honestly when untold.
#[tokio::test]
async fn a_question_about_the_player_is_answered_by_what_they_told() {
    let viktor = persona("viktor");
    let history = MatchHistory {
        played: 1,
        user_losses: 1,
        ..MatchHistory::default()
    };
    let (_, ctx) = context(&["e4"], &history);
    let remembered =
        |content: &str, kind: MemoryType, similarity: f32| of_player(ctx.player_id, content, kind, similarity);
    let memories = [
        remembered(
            "On 1 May, Ann played White and lost to me.",
            MemoryType::GameContext,
            0.6,
        ),
        remembered("Ann learned chess from their dad.", MemoryType::PlayerObservation, 0.5),
    ];
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    let ask = async |text: &str| said(&decide_recalling(chat(text), &ctx, &viktor, &memories).await).join(" ");
    let taught = ask("Who taught me chess?").await;
    assert!(
        taught.contains("You told me yourself: “Ann learned chess from their dad.”"),
        "{taught}"
    );
    let known = ask("Do you remember me?").await;
    assert!(known.contains("one game so far"), "{known}");
    // Recall's order answers, not the nearest by raw meaning.
    let ranked = [
        remembered("Ann is a nurse in Hamburg.", MemoryType::PlayerObservation, 0.10),
        remembered("Ann said: \"first time here.\"", MemoryType::PlayerObservation, 0.12),
    ];
    let work = said(&decide_recalling(chat("do you remember what I do for work?"), &ctx, &viktor, &ranked).await);
    assert!(work.join(" ").contains("nurse in Hamburg"), "{work:?}");
    let (_, bare) = context(&["e4"], &MatchHistory::default());
    let untold = said(&decide(chat("what's my job?"), &bare, &viktor).await).join(" ");
    // Said alone: the card's lead-ins ("Of course I do.") claim to remember.
    assert_eq!(untold, "You haven't told me that yet, Ann.");
    // A greeting that tells something is answered as a greeting, and the
    // fact is said back as well.
    let hello = said(&decide(chat("hi! I'm Ann, I teach piano at the conservatory"), &bare, &viktor).await);
    assert!(
        hello.len() >= 2 && hello.iter().any(|l| l.contains("piano")),
        "{hello:?}"
    );
}

/// A greeting recites a fact in the persona's words before a line the
/// listener could only keep as the player said it.
#[tokio::test]
async fn a_greeting_prefers_a_fact_to_a_quoted_line() {
    let viktor = persona("viktor");
    let history = MatchHistory {
        played: 3,
        user_losses: 3,
        ..MatchHistory::default()
    };
    let (_, ctx) = context(&[], &history);
    let remembered =
        |content: &str, similarity: f32| of_player(ctx.player_id, content, MemoryType::PlayerObservation, similarity);
    let memories = [
        remembered("Ann said: \"back from the gym, legs are jelly lol.\"", 0.6),
        remembered("Ann teaches maths at a school in Porto.", 0.5),
    ];
    let greeted =
        said(&decide_recalling(Trigger::new(TriggerKind::BeforeMatch), &ctx, &viktor, &memories).await).join(" ");
    assert!(greeted.contains("teaches maths"), "{greeted}");
    assert!(!greeted.contains("gym"), "{greeted}");
    // So is a fact that opens on them before a fragment about their day.
    let memories = [
        remembered("The worst shift Ann has had all year.", 0.6),
        remembered("Ann works as a nurse at the city hospital.", 0.5),
    ];
    let greeted =
        said(&decide_recalling(Trigger::new(TriggerKind::BeforeMatch), &ctx, &viktor, &memories).await).join(" ");
    assert!(greeted.contains("as a nurse"), "{greeted}");
    assert!(!greeted.contains("worst shift"), "{greeted}");
}

/// Bad news the player told is not recited at the next greeting ("I
/// remember you: lost their job"), nor in the reminder after it: the
/// greeting takes another memory.
#[tokio::test]
async fn a_greeting_does_not_recite_bad_news() {
    let viktor = persona("viktor");
    let history = MatchHistory {
        played: 2,
        user_losses: 2,
        ..MatchHistory::default()
    };
    let (_, ctx) = context(&[], &history);
    let mut job = of_player(
        ctx.player_id,
        "Ann lost their job on 29 November 2026.",
        MemoryType::PlayerObservation,
        0.7,
    );
    job.memory.metadata = super::bad_news_mark();
    // Recalled for a cue, as a dated memory is at a greeting: the
    // reminder after the greeting must not recite it either.
    job.why = "how our last game went".into();
    let bus = of_player(
        ctx.player_id,
        "Ann drives night buses in Leeds.",
        MemoryType::PlayerObservation,
        0.5,
    );
    let greet = Trigger::new(TriggerKind::BeforeMatch);
    let greeted = said(&decide_recalling(greet.clone(), &ctx, &viktor, &[job.clone(), bus]).await).join(" ");
    assert!(greeted.contains("night buses"), "{greeted}");
    assert!(!greeted.contains("job"), "{greeted}");
    let alone = said(&decide_recalling(greet, &ctx, &viktor, &[job]).await).join(" ");
    assert!(!alone.contains("job"), "{alone}");
}

/// A memory of Viktor's about the player, recalled at this similarity.
fn of_player(player: PlayerId, content: &str, kind: MemoryType, similarity: f32) -> Recalled {
    use crate::memory::{CreatedBy, Memory};
    Recalled {
        memory: Memory {
            player_id: Some(player),
            ..Memory::new("viktor", kind, content, CreatedBy::MainAgent)
        },
        similarity,
        score: similarity,
        why: String::new(),
        relevance: None,
    }
}
