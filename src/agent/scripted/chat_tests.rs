//! The scripted brain's answers to chat lines: banter in the persona's
//! mood, tiredness as tiredness, nothing echoed when nothing was told, and
//! news congratulated, regretted or wished luck.

use super::tests::{context, decide, decide_in_mood, persona, said};
use super::*;
use crate::personas::said_from as says;
use crate::triggers::{MatchHistory, Trigger};

/// Trash talk and compliments are answered in the mood they find the
/// persona in, with the card's lines for that mood, and move its mood.
#[tokio::test]
async fn banter_is_answered_in_the_persona_s_mood_and_moves_it() {
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    let mood_of = |text: &str| {
        let line = viktor.chat["trash_talk"]
            .iter()
            .find(|l| l.text.replace("{player}", "Ann") == text);
        line.map(|l| l.mood.clone())
    };
    for (emotion, expected) in [
        ("irritated", Some("irritated")),
        ("cocky", None),
        ("fired_up", Some("fired_up")),
    ] {
        let d = decide_in_mood(chat("you're going down, old man"), &ctx, &viktor, &[], emotion).await;
        let line = said(&d).remove(0);
        assert_eq!(mood_of(&line), Some(expected.map(str::to_string)), "{emotion}: {line}");
        let felt: Vec<Action> = d
            .actions
            .into_iter()
            .filter(|a| matches!(a, Action::SetEmotion { .. }))
            .collect();
        let moved = emotion != "fired_up";
        assert_eq!(
            felt,
            if moved { vec![Action::feel("fired_up")] } else { vec![] },
            "{emotion}"
        );
    }
    let d = decide_in_mood(chat("wow, what a brilliant move"), &ctx, &viktor, &[], "impressed").await;
    assert!(said(&d)[0].contains("not so bad yourself"), "{d:?}");
    assert!(d.actions.contains(&Action::feel("cocky")), "{d:?}");
}

/// A player who says they are tired is not told "no need to apologise":
/// the card's tiredness lines answer, its apology lines only a "sorry".
#[tokio::test]
async fn tiredness_is_answered_as_tiredness_not_as_an_apology() {
    let margot = persona("margot");
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    let chat = |text: &str| Trigger::input(UserInput::Chat { text: text.into() });
    let is_in = |key: &str, line: &str| {
        margot.chat[key]
            .iter()
            .any(|l| l.text.replace("{player}", "Ann") == line)
    };
    let d = decide(chat("I fixed three bikes today, tired now"), &ctx, &margot).await;
    let lines = said(&d);
    assert!(is_in("tiredness", &lines[0]), "{lines:?}");
    // Today's work tells of the moment, not of the player: nothing kept.
    assert!(
        !d.actions.iter().any(|a| matches!(a, Action::SaveMemory { .. })),
        "{d:?}"
    );
    let d = decide(chat("sorry, long day at work"), &ctx, &margot).await;
    assert!(is_in("apology", &said(&d)[0]), "{:?}", said(&d));
    // A card that words no tiredness gets a plain line that fits.
    let mut plain = margot.clone();
    plain.chat.remove("tiredness");
    let d = decide(chat("so sleepy tonight"), &ctx, &plain).await;
    assert!(!said(&d)[0].contains("apolog"), "{:?}", said(&d));
    assert!(
        said(&d)[0].contains("Tired") || said(&d)[0].contains("Long day"),
        "{:?}",
        said(&d)
    );
}

#[tokio::test]
async fn a_line_heard_as_telling_that_told_nothing_is_not_echoed_empty() {
    let pip = persona("pip");
    let (_, ctx) = context(&["e4", "c6"], &MatchHistory::default());
    let line = "haha I would never have found that one myself";
    let mut trigger = Trigger::input(UserInput::Chat { text: line.into() });
    let mut heard = crate::listen::Listener::default().hear(line, None, "Ann");
    heard.intent = crate::listen::Intent::SelfDisclosure;
    assert!(heard.facts.is_empty(), "{:?}", heard.facts);
    trigger.heard = Some(heard);
    let d = decide(trigger, &ctx, &pip).await;
    let words = said(&d);
    let replies: Vec<&str> = pip.lines.chat_reply.iter().map(|l| l.text.as_str()).collect();
    assert!(words.iter().any(|w| replies.iter().any(|r| says(r, w))), "{words:?}");
    assert!(
        !words.iter().any(|w| w.contains(", ?") || w.starts_with('?')),
        "{words:?}"
    );
    assert!(
        !d.actions.iter().any(|a| matches!(a, Action::SaveMemory { .. })),
        "nothing kept"
    );
}

/// `line` as the learned listener hears it, with `intent` (the rules
/// alone misread some) and what `adjust` sets.
fn heard_as(line: &str, intent: crate::listen::Intent, adjust: impl FnOnce(&mut crate::listen::Heard)) -> Trigger {
    let mut trigger = Trigger::input(UserInput::Chat { text: line.into() });
    let mut heard = crate::listen::Listener::default().hear(line, None, "Ann");
    (heard.intent, heard.also) = (intent, Vec::new());
    adjust(&mut heard);
    trigger.heard = Some(heard);
    trigger
}

/// The card's lines for `key`, as said to Ann.
fn card_lines(persona: &crate::personas::Persona, key: &str) -> Vec<String> {
    persona.chat[key]
        .iter()
        .map(|l| l.text.replace("{player}", "Ann"))
        .collect()
}

/// A line that tells only how the player is now ("my back is killing me
/// tonight") is met with the card's `passing` lines, not its reply to idle
/// talk ("Ha! Nice try. Play the move."); a card without them uses that.
#[tokio::test]
async fn a_passing_state_is_met_kindly_not_with_idle_talk() {
    use crate::listen::Intent;
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    let back = || {
        heard_as("my back is killing me tonight", Intent::SelfDisclosure, |h| {
            h.facts.clear();
            h.about = vec![crate::listen::Touch { tag: "life", p: 0.9 }];
        })
    };
    let card = |key: &str| card_lines(&viktor, key);
    let words = said(&decide(back(), &ctx, &viktor).await);
    assert_eq!(words.len(), 1, "{words:?}");
    assert!(card(crate::listen::PASSING).contains(&words[0]), "{words:?}");
    let mut plain = viktor.clone();
    plain.chat.remove(crate::listen::PASSING);
    let words = said(&decide(back(), &ctx, &plain).await);
    assert!(!card(crate::listen::PASSING).contains(&words[0]), "{words:?}");
}

/// News of the player's life is met as news: congratulated, regretted,
/// wished luck, in the card's words or plain ones, and still kept; told
/// inside an apology, it is answered once, not echoed after.
#[tokio::test]
async fn news_is_congratulated_regretted_or_wished_luck_and_kept() {
    use crate::listen::news::News;
    let viktor = persona("viktor");
    let (_, ctx) = context(&["e4"], &MatchHistory::default());
    use crate::listen::Intent;
    let told = |line: &str, intent: Intent, news: News| heard_as(line, intent, |h| h.news = Some(news));
    let card = |key: &str| card_lines(&viktor, key);
    let cases = [
        ("I passed my driving test last week", Intent::SelfDisclosure, News::Good),
        (
            "sorry for the slow moves, my mum has cancer",
            Intent::Apology,
            News::Bad,
        ),
        ("I have a job interview tomorrow", Intent::SelfDisclosure, News::Ahead),
    ];
    for (line, intent, news) in cases {
        let d = decide(told(line, intent, news), &ctx, &viktor).await;
        let words = said(&d);
        assert_eq!(words.len(), 1, "one answer: {words:?}");
        assert!(card(news.key()).contains(&words[0]), "{line}: {words:?}");
        assert!(
            d.actions.iter().any(|a| matches!(a, Action::SaveMemory { .. })),
            "{line}: kept"
        );
    }
    // A line that tells nothing of their life is no news, whatever the reader says.
    let d = decide(told("thanks!", Intent::Thanks, News::Good), &ctx, &viktor).await;
    assert!(
        !said(&d).iter().any(|w| card("good_news").contains(w)),
        "{:?}",
        said(&d)
    );
    // A goodbye's reason ahead is answered by the goodbye alone; bad news
    // told on the way out is still met as such.
    // (Heard telling of themselves too, as the model hears such lines.)
    let leaving = |line: &str, news: News| {
        let mut t = told(line, Intent::Farewell, news);
        if let Some(heard) = t.heard.as_mut() {
            heard.also = vec![Intent::SelfDisclosure];
        }
        t
    };
    let words = said(&decide(leaving("signing off, early start tomorrow", News::Ahead), &ctx, &viktor).await);
    assert!(!words.iter().any(|w| card("news_ahead").contains(w)), "{words:?}");
    assert_eq!(words.len(), 1, "{words:?}");
    let leaving = leaving("have to go, my dad is in hospital", News::Bad);
    let words = said(&decide(leaving, &ctx, &viktor).await);
    assert!(words.iter().any(|w| card("bad_news").contains(w)), "{words:?}");
    // A trial ahead of their son is wished him, in the card's words for it.
    let son = told(
        "my son starts university next september",
        Intent::SelfDisclosure,
        News::Ahead,
    );
    let words = said(&decide(son, &ctx, &viktor).await);
    let theirs: Vec<String> = card(crate::listen::news::AHEAD_OF_THEIRS)
        .iter()
        .map(|l| l.replace("{them}", "your son"))
        .collect();
    assert_eq!(words.len(), 1, "{words:?}");
    assert!(theirs.contains(&words[0]), "{words:?}");
    let mut plain = viktor.clone();
    plain.chat.remove(crate::listen::news::AHEAD_OF_THEIRS);
    let son = told(
        "my son starts university next september",
        Intent::SelfDisclosure,
        News::Ahead,
    );
    let words = said(&decide(son, &ctx, &plain).await);
    assert!(words[0].contains("your son"), "{words:?}");
    plain.chat.remove("good_news");
    let passed = told("I passed my driving test last week", Intent::SelfDisclosure, News::Good);
    let d = decide(passed, &ctx, &plain).await;
    assert!(said(&d)[0].contains("ongratulations"), "{:?}", said(&d));
}
