//! The scripted brain's answer to a chat line, by what the listener heard
//! (`listen::Heard`): questions about the two of them from the match
//! history and the recalled memories, about the persona from its lore,
//! about the board from the odds; what the player tells of themselves is
//! echoed and kept as a fact in the third person (never the transcript).
//! The persona's card may word each intent (`[chat]`); else a plain line.

use super::echo::echo;
use super::{Speaker, board, quoted};
use crate::actions::{Action, Decision};
use crate::agent::BrainInput;
use crate::chess::engine::Style;
use crate::listen::news::News;
use crate::listen::{Heard, Intent};
use crate::memory::{CreatedBy, MemoryType, Recalled};
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
    let worth = |r: &&Recalled| r.similarity >= MENTION_SCORE || !r.why.is_empty();
    let not_just_told = |r: &&Recalled| !heard.facts.contains(&r.memory.content);
    let fresh = |r: &&Recalled| !super::quoted_this_match(input, r);
    chatty.then(|| input.memories.iter().filter(worth).filter(fresh).find(not_just_told))?
}

/// A recalled memory this similar to what the player said gets mentioned.
const MENTION_SCORE: f32 = 0.5;

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

/// What a question is answered with, from what is known; empty when the
/// intent asks nothing. The LLM brain is told it too.
pub(crate) fn answer(input: &BrainInput<'_>, text: &str, intent: Intent) -> String {
    answered(input, text, intent).text
}

/// An answer, and whether it tells something or owns to not knowing: a
/// card's "Of course I do. {answer}" must not lead into "you haven't told
/// me that yet", so an answer that knows nothing is said alone.
struct Answer {
    text: String,
    known: bool,
}

impl Answer {
    fn known(text: String) -> Answer {
        Answer { text, known: true }
    }
}

fn answered(input: &BrainInput<'_>, text: &str, intent: Intent) -> Answer {
    let a_question = matches!(intent, Intent::AsksMemory | Intent::AsksPersona | Intent::AsksPosition);
    if a_question && super::standing::asks_own_rating(text) {
        return Answer::known(super::standing::told(input.ctx));
    }
    match intent {
        Intent::AsksMemory => about_us(input, text),
        Intent::AsksPersona => Answer::known(about_me(input, text)),
        Intent::AsksPosition => Answer::known(board::about_the_board(input, text)),
        Intent::DrawRequest => Answer::known(match board::user_win_pct(input) {
            Some(p) if p < 45.0 => "A draw? Not while I'm better. Play on.".into(),
            _ => "Offer it with the draw button and I'll think it over.".into(),
        }),
        _ => Answer::known(String::new()),
    }
}

fn player_memories<'a>(input: &'a BrainInput<'_>) -> impl Iterator<Item = &'a Recalled> {
    input.memories.iter().filter(|r| r.memory.player_id.is_some())
}

/// "Do you remember me?", "how many times have I beaten you?", "what did I
/// play last time?": the head-to-head, the openings, the memories.
fn about_us(input: &BrainInput<'_>, text: &str) -> Answer {
    let (ctx, h) = (input.ctx, &input.ctx.history);
    let t = text.to_lowercase();
    let asks_score = ["beat", "won", "win", "score", "record", "how many", "lost"]
        .iter()
        .any(|w| t.contains(w));
    if asks_score {
        let text = match h.played {
            0 => format!("We haven't finished a game yet, {}.", ctx.player_name),
            n => {
                let mut s = format!(
                    "We've played {}: you won {}, I won {}, {} drawn.",
                    games(n),
                    h.user_wins,
                    h.user_losses,
                    h.draws
                );
                if let Some((run, k)) = h.streak.as_ref().filter(|(_, k)| *k >= 2) {
                    s.push_str(&format!(" That's {k} {} in a row.", run.replace("user_", "you ")));
                }
                s
            }
        };
        return Answer {
            text,
            known: h.played > 0,
        };
    }
    let asks_openings = ["play", "opening", "opened"].iter().any(|w| t.contains(w));
    if asks_openings {
        if let Some(last) = h.last_game.as_ref().filter(|g| g.opening.is_some()) {
            return Answer::known(last_game(last));
        }
        let opening = player_memories(input).find(|r| r.memory.tags.iter().any(|t| t.starts_with("opening:")));
        if let Some(r) = opening {
            return Answer::known(format!("I remember: {}", quoted(&r.memory.content)));
        }
        if let Some(u) = h.usual_openings.first() {
            let colour = if ctx.user_color == "white" { "White" } else { "Black" };
            return Answer::known(format!(
                "As {colour} you chose the {} ({} of your last {} games).",
                u.family, u.games, u.of
            ));
        }
    }
    // "Who taught me chess?": a question about them, answered by what they
    // told (the memory most like the question), or honestly not.
    let whether_known = [
        "remember me",
        "know me",
        "who am i",
        "met",
        "recognise",
        "recognize",
        "forgot",
    ];
    let about_them = t
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| ["me", "my", "i"].contains(&w));
    if about_them && !whether_known.iter().any(|w| t.contains(w)) {
        // The first in recall's order, which weighed what the question is
        // about, not the nearest in raw meaning: "what I do for work?" is
        // nearer 'Lena said: "first time here."' (0.12) than "Lena is a
        // nurse in Hamburg." (0.10), seen in play.
        let told = player_memories(input).find(|r| r.memory.memory_type != MemoryType::GameContext);
        return match told {
            Some(r) => Answer::known(format!("You told me yourself: {}", quoted(&r.memory.content))),
            None => Answer {
                text: format!("You haven't told me that yet, {}.", ctx.player_name),
                known: false,
            },
        };
    }
    // What they told of themselves says "I know you" better than a result.
    let personal = |r: &&Recalled| r.memory.tags.iter().any(|t| t == "personal");
    let best = player_memories(input)
        .find(personal)
        .or_else(|| player_memories(input).max_by(|a, b| a.similarity.total_cmp(&b.similarity)));
    let text = match (best, h.played) {
        (None, 0) => {
            return Answer {
                text: format!("I don't think we've met before, {}.", ctx.player_name),
                known: false,
            };
        }
        (None, n) => format!("Of course, {}: we've played {}.", ctx.player_name, games(n)),
        (Some(r), 0) => format!("I remember you, {}: {}", ctx.player_name, quoted(&r.memory.content)),
        (Some(r), n) => format!(
            "Of course, {}: {} so far, and I remember {}",
            ctx.player_name,
            games(n),
            quoted(&r.memory.content)
        ),
    };
    Answer::known(text)
}

/// "Last time you had White: the Italian Game, and you resigned after 23 moves."
fn last_game(g: &crate::triggers::LastGame) -> String {
    let colour = if g.user_color == "white" { "White" } else { "Black" };
    let how = match g.user_won {
        Some(true) => format!("you won by {}", g.termination),
        Some(false) if g.termination == "resignation" => "you resigned".to_string(),
        Some(false) => format!("I won by {}", g.termination),
        None => format!("we drew by {}", g.termination),
    };
    let opening = g.opening.as_deref().unwrap_or("a game of our own");
    format!(
        "Last time you had {colour}: the {opening}, and {how} after {}.",
        moves(g.moves)
    )
}

fn moves(n: usize) -> String {
    match n {
        1 => "one move".into(),
        n => format!("{n} moves"),
    }
}

fn games(n: u32) -> String {
    match n {
        1 => "one game".into(),
        n => format!("{n} games"),
    }
}

/// About the persona: its strength or style when asked, else its lore,
/// else who it is.
fn about_me(input: &BrainInput<'_>, text: &str) -> String {
    let (p, t) = (input.persona, text.to_lowercase());
    let asks = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if asks(&["rating", "elo", "how strong", "how good are you"]) {
        return format!("I play at about {} here at the club.", p.elo);
    }
    let style_words = [
        "style",
        "kind of player",
        "how do you play",
        "sort of player",
        "aggressive",
        "attacking",
    ];
    if asks(&style_words) || asks(&["defensive", "solid", "positional", "tricky", "careful"]) {
        let style = match p.style {
            Style::Aggressive => "aggressive: I go for the king and take my chances",
            Style::Positional => "positional: good squares, sound pawns, no hurry",
            Style::Defensive => "defensive: I keep things solid and wait for your mistake",
            Style::Tricky => "tricky: I set traps and see if you step in them",
        };
        return format!("My style is {style}.");
    }
    // What it told already in this match is not told again ("who is your
    // favourite player?" after "do you like the Queen's Gambit?" got the
    // same line of its biography twice): the nearest lore, who it is, then
    // lore the question did not bring, each once.
    let unsaid = |words: &str| !input.ctx.said.iter().any(|line| line.contains(words));
    let club = |lore: &str| format!("Ask anyone at the club: {}", quoted(lore));
    let lore = input
        .memories
        .iter()
        .filter(|r| r.memory.created_by == CreatedBy::PersonaLore && unsaid(&r.memory.content))
        .max_by(|a, b| a.similarity.total_cmp(&b.similarity));
    let bio = &p.biography;
    let who = bio.split_inclusive(". ").next().unwrap_or(bio).trim();
    match lore {
        Some(r) => club(&r.memory.content),
        None if unsaid(who) => who.to_string(),
        None => match p.lore.iter().find(|l| unsaid(&l.text)) {
            Some(l) => club(&l.text),
            None => "You know my story already.".to_string(),
        },
    }
}
