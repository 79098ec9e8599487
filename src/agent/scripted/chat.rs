//! The scripted brain's answer to a chat line, by what the listener heard
//! (`listen::Heard`): questions from what is known (`answers.rs`); what the player tells of themselves is
//! echoed and kept as a fact in the third person (never the transcript).
//! The persona's card may word each intent (`[chat]`); else a plain line.

use super::answers::answered;
use super::echo::echo;
use super::{Speaker, quoted};
use crate::actions::{Action, Decision};
use crate::agent::BrainInput;
use crate::listen::news::News;
use crate::listen::{Heard, Intent};
use crate::memory::{MemoryType, Recalled};
use crate::personas::LineEvent;

/// The plain lines, by intent, for a card that words none. `{answer}`,
/// `{echo}`, `{player}` are filled in.
fn plain_lines(intent: Intent) -> &'static [&'static str] {
    match intent {
        Intent::Greeting => &["Hello, {player}!", "Good to have you at the board, {player}."],
        Intent::Farewell => &[
            "Off already? See you next time, {player}.",
            "Until next time, {player}.",
        ],
        Intent::AsksMemory | Intent::AsksPersona | Intent::AsksPosition | Intent::DrawRequest => &["{answer}"],
        Intent::SelfDisclosure | Intent::Preference => &["{echo}? I'll remember that, {player}.", "{echo}. Noted!"],
        Intent::Compliment => &["Thank you, {player}!", "Kind of you. Careful, though."],
        Intent::TrashTalk => &["Big words. Let the board decide.", "We'll see about that, {player}."],
        Intent::Apology => &["No harm done, take your time.", "Don't worry about it, {player}."],
        Intent::TakebackRequest => &[
            "No takebacks at this club, {player}: touch-move.",
            "Sorry, a move played is played.",
        ],
        Intent::Thanks => &["You're welcome, {player}.", "Any time."],
        Intent::OffTopic => &[],
    }
}

/// The plain lines for a fact it already holds: `{echo}` is the memory.
const PLAIN_KNOWN: &[&str] = &["You told me before, {player}: {echo}", "I remember, {player}: {echo}"];

/// The player's recalled memory that holds this fact already, if any.
fn held<'a>(input: &'a BrainInput<'_>, fact: &str) -> Option<&'a Recalled> {
    input
        .memories
        .iter()
        .find(|r| r.memory.player_id.is_some() && crate::listen::same_fact(fact, &r.memory.content))
}

/// The plain lines for news of the player's life, for a card that words none.
fn plain_news(news: News) -> &'static [&'static str] {
    match news {
        News::Good => &[
            "Congratulations, {player}! That's wonderful news.",
            "What wonderful news, {player}. Congratulations!",
        ],
        News::Bad => &[
            "I'm so sorry, {player}. Take all the time you need.",
            "That's hard news, {player}. I'm sorry.",
        ],
        News::Ahead => &[
            "Good luck, {player}! You'll do well.",
            "Best of luck with it, {player}.",
        ],
    }
}

/// The plain lines for a trial ahead of someone close to the player.
const PLAIN_AHEAD_OF_THEIRS: &[&str] = &["Good luck to {them}, {player}!", "Wish {them} luck from me, {player}."];

/// The plain lines for a player who is tired, not sorry.
const PLAIN_TIRED: &[&str] = &[
    "Long day, {player}? No rush, take your time.",
    "Tired? Then let's keep it friendly.",
];

/// The reply to a chat line, the fact it told (if any) kept.
pub(super) fn reply(input: &BrainInput<'_>, s: &Speaker<'_>, text: &str, heard: &Heard) -> Decision {
    // "Hi! Do you remember me?" is a greeting whose question is answered.
    let intent = heard.to_answer();
    let answer = answered(input, text, intent);
    let fill = Fill {
        answer: answer.text,
        echo: heard
            .facts
            .first()
            .map(|f| echo(f, &input.ctx.player_name))
            .unwrap_or_default(),
        them: heard
            .facts
            .first()
            .and_then(|f| crate::listen::kin_of(f, &input.ctx.player_name))
            .map(|kin| format!("your {kin}"))
            .unwrap_or_default(),
    };
    let mut actions = Vec::new();
    // "Long day, tired now" is heard with the apologies but nobody said
    // sorry: it gets the card's `tiredness` lines, or plain ones.
    let tired = intent == Intent::Apology && !crate::listen::says_sorry(text);
    let key = if tired {
        crate::listen::TIREDNESS
    } else {
        intent.as_str()
    };
    // A goodbye and banter back are worded by how well it knows them.
    let staged = match intent {
        Intent::Farewell => super::familiar::farewell_lines(input),
        Intent::TrashTalk => super::familiar::tease_lines(input),
        _ => None,
    };
    // Heard as telling, yet nothing lasting was told ("haha I would never
    // have found that"): nothing to say back, so no "Whoa, ? Noted!".
    let nothing_told = matches!(intent, Intent::SelfDisclosure | Intent::Preference) && fill.echo.is_empty();
    let worded = || input.persona.chat.get(key).filter(|l| !l.is_empty() && answer.known);
    let card = staged.or_else(|| worded().map(Vec::as_slice));
    // Told again what it holds: said back as known, not noted a second time.
    let known = heard.facts.first().and_then(|f| held(input, f));
    let recognised = Fill {
        answer: String::new(),
        echo: known.map(|r| quoted(&r.memory.content)).unwrap_or_default(),
        them: String::new(),
    };
    // News of their life is met as a friend meets it: congratulated,
    // regretted or wished luck ("sorry I'm slow, my mum's in hospital"
    // too), never "Ha! I remember this."
    // A goodbye's reason still to come ("signing off, early start
    // tomorrow") is why they leave, routine as often as a trial: the
    // goodbye answers it, not a second line wishing luck.
    let news = heard
        .news_told()
        .filter(|n| !(intent == Intent::Farewell && *n == News::Ahead));
    let about_news = matches!(intent, Intent::SelfDisclosure | Intent::OffTopic | Intent::Apology);
    let told_again = known.is_some() && matches!(intent, Intent::SelfDisclosure | Intent::Preference);
    let said = match card {
        _ if told_again => plain(s, PLAIN_KNOWN, &recognised),
        _ if let Some(news) = news.filter(|_| about_news) => news_line(input, s, news, &fill),
        _ if nothing_told => passing(input, s, heard),
        Some(lines) => s.pick_from(lines, &fill.placeholders()),
        None if tired => plain(s, PLAIN_TIRED, &fill),
        None => plain(s, plain_lines(intent), &fill),
    };
    actions.push(said);
    // "Hi, I'm Sam, I teach piano": a line for something else that also
    // tells a fact gets the fact said back too, as a disclosure would.
    let echoed = matches!(intent, Intent::SelfDisclosure | Intent::Preference);
    let disclosure = input.persona.chat.get(Intent::SelfDisclosure.as_str());
    if known.is_some() && !echoed {
        actions.push(plain(s, PLAIN_KNOWN, &recognised));
    } else if let Some(news) = news.filter(|_| !about_news) {
        actions.push(news_line(input, s, news, &fill));
    } else if let Some(lines) =
        disclosure.filter(|l| !l.is_empty() && !echoed && !fill.echo.is_empty() && news.is_none())
    {
        actions.push(s.pick_from(lines, &fill.placeholders()));
    }
    let moods = &input.persona.moods;
    let moved = match intent {
        Intent::Compliment => moods.compliment.as_deref(),
        Intent::TrashTalk => moods.trash_talk.as_deref(),
        _ => None,
    };
    // Answered in the mood it found the persona in; the words move it after.
    actions.extend(moved.filter(|m| *m != input.emotion).map(Action::feel));
    if let Some(related) = related_memory(input, heard, &fill.answer) {
        actions.push(Action::say(super::reminder(related), &input.persona.tones[0]));
    }
    for fact in &heard.facts {
        let kind = match intent {
            Intent::Preference => MemoryType::PlayerBehavior,
            _ => MemoryType::PlayerObservation,
        };
        // Bad news is marked, so a greeting does not recite it ("I
        // remember you: lost their job") as it would a hobby.
        let metadata = match heard.news {
            Some(News::Bad) => super::bad_news_mark(),
            _ => serde_json::Value::Null,
        };
        actions.push(Action::SaveMemory {
            content: fact.clone(),
            memory_type: kind,
            importance: None,
            metadata,
        });
    }
    let thinking = format!(
        "{} {} ({:.2}, by {}).",
        input.ctx.player_name,
        intent.as_str().replace('_', " "),
        heard.confidence,
        heard.by
    );
    Decision {
        thinking: Some(thinking),
        actions,
    }
}

/// A memory the line brought back, told beside the answer where the
/// answer did not use one already: what the player says of themselves,
/// their tastes, their small talk; and, whatever the line was for, a lore
/// line the player named by one of its keys ("what's on the menu?").
fn related_memory<'a>(input: &'a BrainInput<'_>, heard: &Heard, answer: &str) -> Option<&'a Recalled> {
    let named = |r: &&Recalled| r.why.starts_with(crate::subconscious::BY_KEY) && !answer.contains(&r.memory.content);
    if let Some(r) = input.memories.iter().find(named) {
        return Some(r);
    }
    let chatty = matches!(
        heard.to_answer(),
        Intent::SelfDisclosure
            | Intent::Preference
            | Intent::OffTopic
            | Intent::Compliment
            | Intent::TrashTalk
            | Intent::Apology
    );
    let brought = |r: &&Recalled| r.similarity >= MENTION_SCORE || !r.why.is_empty();
    let worth = |r: &&Recalled| brought(r) && r.relevance.is_none_or(|p| p >= SPEAK_RELEVANCE);
    let not_just_told = |r: &&Recalled| !heard.facts.contains(&r.memory.content);
    let fresh = |r: &&Recalled| !super::quoted_this_match(input, r);
    chatty.then(|| input.memories.iter().filter(worth).filter(fresh).find(not_just_told))?
}

/// A recalled memory this similar to what the player said gets mentioned.
const MENTION_SCORE: f32 = 0.5;

/// What the relevance model must give a memory for it to be said aloud
/// beside the answer: likelier than not what the line is about. Recall
/// hands the brain memories from `recall.relevance_min` (0.15), where the
/// likeliest is right 71-77% of the time on the corpus's files (`kibitz
/// bench relevance`, each scored by a model fitted on the others); at 0.5,
/// 84-88%. A reminder said wrongly is a non sequitur ("how is the tea
/// today?" brought the player's worst shift, at 0.21).
const SPEAK_RELEVANCE: f32 = 0.5;

struct Fill {
    answer: String,
    echo: String,
    /// Whom close to the player the fact told of ("your son"), if anyone.
    them: String,
}

impl Fill {
    fn placeholders(&self) -> [(&'static str, &str); 3] {
        [
            ("{answer}", &self.answer),
            ("{echo}", &self.echo),
            ("{them}", &self.them),
        ]
    }
}

/// A line that told nothing lasting: the card's `passing` lines when it
/// told of the player's life now (not "haha I would never have found
/// that", which is about the game), else its chat reply.
fn passing(input: &BrainInput<'_>, s: &Speaker<'_>, heard: &Heard) -> Action {
    let of_their_life = heard.about.iter().any(|t| t.tag == "life" && t.p >= 0.5);
    let lines = input.persona.chat.get(crate::listen::PASSING).filter(|l| !l.is_empty());
    match lines.filter(|_| heard.to_answer() == Intent::SelfDisclosure && of_their_life) {
        Some(lines) => s.pick_from(lines, &[]),
        None => s.line(LineEvent::ChatReply, &super::Fill::default()),
    }
}

/// The card's words for this news, else plain ones. A trial ahead of
/// their son is wished him, not her ("prepare well" is not for her).
fn news_line(input: &BrainInput<'_>, s: &Speaker<'_>, news: News, fill: &Fill) -> Action {
    let theirs = news == News::Ahead && !fill.them.is_empty();
    let (key, plain_lines) = match theirs {
        true => (crate::listen::news::AHEAD_OF_THEIRS, PLAIN_AHEAD_OF_THEIRS),
        false => (news.key(), plain_news(news)),
    };
    match input.persona.chat.get(key).filter(|l| !l.is_empty()) {
        Some(lines) => s.pick_from(lines, &fill.placeholders()),
        None => plain(s, plain_lines, fill),
    }
}

fn plain(s: &Speaker<'_>, lines: &[&str], fill: &Fill) -> Action {
    if lines.is_empty() {
        return s.line(crate::personas::LineEvent::ChatReply, &Default::default());
    }
    let lines: Vec<crate::personas::Line> = lines
        .iter()
        .map(|t| crate::personas::Line {
            text: t.to_string(),
            tone: s.persona.tones[0].clone(),
            mood: None,
        })
        .collect();
    s.pick_from(&lines, &fill.placeholders())
}
